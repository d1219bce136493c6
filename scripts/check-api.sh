#!/usr/bin/env bash
# Compares the public API with the latest release tag (vMAJOR.MINOR.PATCH) and fails on any
# source- or binary-breaking change. Before the first release tag there is nothing to compare.
#
# Environment: SCRATCH_PATH  SwiftPM build directory to use (default: .build)
set -euo pipefail

cd "$(dirname "$0")/.."

latest_tag="$(git tag --list 'v[0-9]*.[0-9]*.[0-9]*' --sort=-version:refname | head -n 1)"
if [ -z "$latest_tag" ]; then
    echo "No release tag (v*.*.*) yet: no API baseline to compare against."
    exit 0
fi

echo "==> Checking the public API against $latest_tag"
# scripts/api-breakage-allowlist.txt: changes the tool reports that are not breaking for clients
# (`package` declarations, which only this package's own modules see), one message per line.
swift package --scratch-path "${SCRATCH_PATH:-.build}" diagnose-api-breaking-changes "$latest_tag" \
    --products AppSettings --breakage-allowlist-path scripts/api-breakage-allowlist.txt

#!/usr/bin/env bash
# Builds IntegrationTests/DefaultIsolation, a package whose target is configured as Xcode 26
# configures a new app target (default actor isolation MainActor, NonisolatedNonsendingByDefault,
# InferIsolatedConformances), with warnings as errors, and runs it: every declaration form the
# README shows must compile there and work against a scratch UserDefaults suite.
#
# Environment: SCRATCH_PATH  SwiftPM build directory to use
#                            (default: IntegrationTests/DefaultIsolation/.build/strict)
set -euo pipefail

cd "$(dirname "$0")/.."

package=IntegrationTests/DefaultIsolation
options=(--package-path "$package" --scratch-path "${SCRATCH_PATH:-$package/.build/strict}")

echo "==> Building $package with warnings as errors"
swift build "${options[@]}" -Xswiftc -warnings-as-errors
bin_path="$(swift build "${options[@]}" -Xswiftc -warnings-as-errors --show-bin-path)"

echo "==> Running it"
"$bin_path/DefaultIsolationCheck"

echo "==> Its tests (the README's .isolatedAppSettings test), in a temporary HOME"
scratch_home="$(mktemp -d)"
trap 'rm -rf "$scratch_home"' EXIT
HOME="$scratch_home" swift test "${options[@]}" -Xswiftc -warnings-as-errors
if [ -d "$scratch_home/.config" ] && [ -n "$(find "$scratch_home/.config" -mindepth 1 -print -quit)" ]; then
    echo "the isolated tests wrote to the configuration directory:"; find "$scratch_home/.config"; exit 1
fi

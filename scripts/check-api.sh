#!/usr/bin/env bash
# Compares the public API of the package's library products with the last release and fails on
# any source- or binary-breaking change that scripts/api-breakage-allowlist.txt does not list.
#
# The release is the commit recorded in scripts/api-baseline.txt (a tag may be missing in a clone:
# tags do not travel with the branch). A clone without that commit (a shallow one) fails, saying so:
# this check never passes for want of a baseline.
#
# Usage: scripts/check-api.sh [--self-test]
#   --self-test  then makes a public member of the library internal (in place, put back on exit) and
#                requires the check to fail, naming that member: the check can fail.
# Environment: SCRATCH_PATH  SwiftPM build directory to use (default: .build)
set -euo pipefail

cd "$(dirname "$0")/.."

scratch="${SCRATCH_PATH:-.build}"
baseline_file=scripts/api-baseline.txt
version="$(awk '$1 == "version" { print $2 }' "$baseline_file")"
commit="$(awk '$1 == "commit" { print $2 }' "$baseline_file")"
if [ -z "$version" ] || [ -z "$commit" ]; then
    echo "$baseline_file names no version and commit"
    exit 1
fi
if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "The release $version's commit $commit is not in this clone (a shallow clone?): fetch the"
    echo "history (git fetch --unshallow) so the public API can be compared with it."
    exit 1
fi

products=(AppSettings AppSettingsTesting AppSettingsStoredSets)
# The baseline's API, made once per commit and kept in the build directory.
baseline_dir="$scratch/api-baseline/$commit"

# check: runs the comparison; its output goes to standard output.
check() {
    swift package --scratch-path "$scratch" diagnose-api-breaking-changes "$commit" \
        --products "${products[@]}" --baseline-dir "$baseline_dir" \
        --breakage-allowlist-path scripts/api-breakage-allowlist.txt
}

echo "==> The public API against release $version ($commit)"
check

[ "${1:-}" = "--self-test" ] || exit 0

echo
echo "==> Self-test: a public member removed must fail the check"
file=Sources/AppSettings/SettingSource.swift
declaration='    public var isOverride: Bool {'
grep -qxF "$declaration" "$file" || { echo "self-test: '$declaration' is no longer in $file"; exit 1; }
backup="$(mktemp)"
cp "$file" "$backup"
trap 'cp "$backup" "$file"; rm -f "$backup"' EXIT
sed -i "s/^    public var isOverride: Bool {\$/    var isOverride: Bool {/" "$file"
output="$(mktemp)"
if check >"$output" 2>&1; then
    cat "$output"
    echo "self-test: the check passed with SettingSource.isOverride no longer public"
    exit 1
fi
if ! grep -q "API breakage: .*isOverride.* has been removed" "$output"; then
    cat "$output"
    echo "self-test: the check failed, but not by naming SettingSource.isOverride as removed"
    exit 1
fi
grep "API breakage" "$output"
echo "self-test: ok (the check refused a removed public member)"

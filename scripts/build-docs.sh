#!/usr/bin/env bash
# Builds the DocC documentation of the AppSettings module with the toolchain's own tools (no
# package plugins): `swift build`, `swift symbolgraph-extract`, then `docc convert`.
# Any documentation warning fails the script.
#
# Usage: scripts/build-docs.sh [output-dir]        (default: docs-build/AppSettings.doccarchive)
# Environment: SCRATCH_PATH  SwiftPM build directory to use (default: .build)
set -euo pipefail

cd "$(dirname "$0")/.."

module=AppSettings
catalog="Sources/$module/Documentation.docc"
output="${1:-docs-build/$module.doccarchive}"
symbol_graphs="docs-build/symbol-graphs"
scratch=(--scratch-path "${SCRATCH_PATH:-.build}")

echo "==> Building $module"
swift build "${scratch[@]}" --target "$module"
bin_path="$(swift build "${scratch[@]}" --show-bin-path)"
module_path="$bin_path/Modules"                 # SwiftPM 6 keeps modules here,
[ -d "$module_path" ] || module_path="$bin_path" # earlier versions next to the products.

echo "==> Extracting the symbol graph"
rm -rf "$symbol_graphs"
mkdir -p "$symbol_graphs"
swift symbolgraph-extract \
    -module-name "$module" \
    -I "$module_path" \
    -minimum-access-level public \
    -skip-inherited-docs \
    -output-dir "$symbol_graphs"

echo "==> Converting the documentation"
rm -rf "$output"
mkdir -p "$(dirname "$output")"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
docc convert "$catalog" \
    --additional-symbol-graph-dir "$symbol_graphs" \
    --output-path "$output" \
    --fallback-display-name "$module" \
    --fallback-bundle-identifier "$module" \
    --warnings-as-errors 2>&1 | tee "$log" || status=$?

# `--warnings-as-errors` turns warnings into errors; also refuse any warning that slips through.
if [ "$status" -ne 0 ] || grep -Eq '^(warning|error):' "$log"; then
    echo "error: the documentation has warnings or errors (see above)" >&2
    exit 1
fi
echo "==> Documentation written to $output"

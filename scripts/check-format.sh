#!/usr/bin/env bash
# Checks that every Swift file is formatted as `.swift-format` says; fails on any finding.
# To fix: swift format --in-place --recursive <the folders listed below> Package.swift
set -euo pipefail

cd "$(dirname "$0")/.."

paths=(Package.swift)
for folder in Sources Tests Example Benchmarks Fuzz Plugins IntegrationTests; do
    [ -d "$folder" ] && paths+=("$folder")
done

echo "==> swift format lint --strict: ${paths[*]}"
swift format lint --strict --recursive --parallel "${paths[@]}"
echo "==> No formatting findings"

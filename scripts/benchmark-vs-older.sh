#!/usr/bin/env bash
# Loading and saving a set of 20 settings, this build against an older one, in one run on one
# machine: the older commit's Benchmarks is built (release) from `git archive` in
# .build/older/<commit>, with this tree's Benchmarks/SideBySide.swift copied in and the one line
# that calls it added to its main.swift; then the two binaries run `--side-by-side SAMPLES` in
# turns, ROUNDS times each (the order alternating, after one warm-up round each). Each round is a
# process that measures, taking turns, a new object of `Settings20` loading its set (beside a live
# object of the key that saved it, an app's `shared`, and with none alive), a save of it, and the
# `Codable` path (`PropertyListDecoder` / `PropertyListEncoder` with `UserDefaults`) that
# both builds measure alike. Prints one table: the medians over the rounds, older, now and the
# `Codable` path, with the ratios (each build's ratio to the `Codable` path is taken round by
# round, in its own process). No threshold: the figures are for reading.
#
# Usage: scripts/benchmark-vs-older.sh [COMMIT] [ROUNDS] [SAMPLES]
#   COMMIT   default 16885fe, the last commit before overrides (issue 19, b74d518)
#   ROUNDS   rounds of each build, default 10
#   SAMPLES  samples of each contender in a round, default 31
set -euo pipefail

commit=${1:-16885fe}
rounds=${2:-10}
samples=${3:-31}
cd "$(dirname "$0")/.."

full=$(git rev-parse --verify "$commit^{commit}")
short=$(git rev-parse --short "$full")
older=".build/older/$short"
if [ ! -f "$older/Package.swift" ]; then
    rm -rf "$older"
    mkdir -p "$older"
    git archive "$full" | tar -x -C "$older"
fi
# The side-by-side mode uses only the public API and the benchmark's own types, which the older
# benchmark has too; its main.swift gets the one line that runs the mode, after its imports.
# (copied only when it differs: a new file's time would rebuild the older benchmark)
cmp -s Benchmarks/SideBySide.swift "$older/Benchmarks/SideBySide.swift" ||
    cp Benchmarks/SideBySide.swift "$older/Benchmarks/SideBySide.swift"
if ! grep -q '^runSideBySideIfAsked()$' "$older/Benchmarks/main.swift"; then
    sed -i '0,/^import Foundation$/s//import Foundation\n\nrunSideBySideIfAsked()/' "$older/Benchmarks/main.swift"
    grep -q '^runSideBySideIfAsked()$' "$older/Benchmarks/main.swift" ||
        { echo "could not add the side-by-side line to $older/Benchmarks/main.swift" >&2; exit 1; }
fi

echo "building this tree's Benchmarks (release)" >&2
swift build -c release --product Benchmarks >&2
now_binary="$(swift build -c release --product Benchmarks --show-bin-path)/Benchmarks"
echo "building $short's Benchmarks (release) in $older" >&2
(cd "$older" && swift build -c release --product Benchmarks >&2)
older_binary="$(cd "$older" && swift build -c release --product Benchmarks --show-bin-path)/Benchmarks"

work=$(mktemp -d "${TMPDIR:-/tmp}/appsettings-vs-older.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"
mkdir -p "$XDG_CONFIG_HOME"

# One round of one build: lines "<build> <round> <row> <nanoseconds>".
run_round() {
    local build=$1 round=$2 binary
    if [ "$build" = older ]; then binary=$older_binary; else binary=$now_binary; fi
    "$binary" --side-by-side "$samples" | awk -v b="$build" -v r="$round" '$1 == "side-by-side" { print b, r, $2, $3 }'
}

: >"$work/results"
for ((round = 0; round <= rounds; round++)); do
    # Round 0 is the warm-up of each; the order alternates so that neither always runs first.
    if ((round % 2 == 0)); then order=(older now); else order=(now older); fi
    for build in "${order[@]}"; do
        if ((round == 0)); then run_round "$build" 0 >/dev/null; else run_round "$build" "$round" >>"$work/results"; fi
    done
    ((round == 0)) || echo "round $round of $rounds" >&2
done

echo "20 settings, $short (older) against $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources Benchmarks || echo ' + changes') (now):" \
    "medians of $rounds rounds each, each round the median of $samples samples per contender;" \
    "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
python3 - "$work/results" <<'EOF'
import statistics, sys
from collections import defaultdict

values = defaultdict(dict)  # (build, row) -> {round: ns}
for line in open(sys.argv[1]):
    build, round_, row, ns = line.split()
    values[(build, row)][int(round_)] = float(ns)

def median(build, row):
    return statistics.median(values[(build, row)].values())

def ratio(build_a, row_a, build_b, row_b):
    """The median over rounds of the ratio, round by round."""
    a, b = values[(build_a, row_a)], values[(build_b, row_b)]
    return statistics.median(a[r] / b[r] for r in a if r in b)

def spread(build, row):
    v = sorted(values[(build, row)].values())
    return f"{v[0] / 1000:.1f}–{v[-1] / 1000:.1f}"

print()
print("| 20 settings | older | now | now / older | Codable path (older's run / now's run) | older / Codable | now / Codable |")
print("|---|---:|---:|---:|---:|---:|---:|")
titles = {
    "load20": "load: a new object beside a live one that saved",
    "load20alone": "load: a new object, none other alive",
    "save20": "save: synchronizeToUserDefaults()",
}
for operation in ["load20", "load20alone", "save20"]:
    app, codable = operation + ".appsettings", operation.replace("alone", "") + ".codable"
    print(
        f"| {titles[operation]} "
        f"| {median('older', app) / 1000:.1f} µs | {median('now', app) / 1000:.1f} µs "
        f"| {ratio('now', app, 'older', app):.2f}x "
        f"| {median('older', codable) / 1000:.1f} / {median('now', codable) / 1000:.1f} µs "
        f"| {ratio('older', app, 'older', codable):.2f}x | {ratio('now', app, 'now', codable):.2f}x |"
    )
print()
print("Spread over the rounds (min–max µs):")
for operation in ["load20", "load20alone", "save20"]:
    for build in ["older", "now"]:
        print(
            f"- {operation} {build}: AppSettings {spread(build, operation + '.appsettings')}, "
            f"Codable {spread(build, operation.replace('alone', '') + '.codable')}"
        )
EOF

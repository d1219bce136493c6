#!/usr/bin/env bash
# Launch time: a whole process that reads one setting of `shared` (a stored set of 20 settings),
# against one that decodes the equivalent Codable struct from UserDefaults.standard. Both are the
# same release binary (`Benchmarks --launch appsettings|codable`), run alternately RUNS times
# each (default 40) in a private configuration directory; prints the median wall times and the
# ratio. No threshold: the figure is for reading (the goal is at most 1.15x).
#
# Usage: scripts/launch-benchmark.sh [RUNS]
set -euo pipefail

runs=${1:-40}
cd "$(dirname "$0")/.."

swift build -c release --product Benchmarks >&2
binary="$(swift build -c release --product Benchmarks --show-bin-path)/Benchmarks"

work=$(mktemp -d "${TMPDIR:-/tmp}/appsettings-launch.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"
mkdir -p "$XDG_CONFIG_HOME"

"$binary" --launch setup
[ "$("$binary" --launch appsettings)" = "$("$binary" --launch codable)" ] ||
    { echo "the two launches read different values" >&2; exit 1; }

# Wall time of one run, in microseconds.
run_once() {
    local start end
    start=$(date +%s%N)
    "$binary" --launch "$1" >/dev/null
    end=$(date +%s%N)
    echo $(((end - start) / 1000))
}

: >"$work/appsettings" && : >"$work/codable"
for ((run = 0; run < runs + 2; run++)); do
    # Two warm-up runs of each; the order alternates so that neither always runs first.
    if ((run % 2 == 0)); then order=(appsettings codable); else order=(codable appsettings); fi
    for step in "${order[@]}"; do
        time=$(run_once "$step")
        ((run < 2)) || echo "$time" >>"$work/$step"
    done
done

median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
appsettings=$(median "$work/appsettings")
codable=$(median "$work/codable")
echo "launch, median of $runs runs each: AppSettings shared ${appsettings} us, Codable from UserDefaults ${codable} us"
awk -v a="$appsettings" -v c="$codable" 'BEGIN { printf "launch ratio: %.2fx (goal <= 1.15x)\n", a / c }'

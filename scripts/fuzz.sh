#!/usr/bin/env bash
# Fuzzes the load path (issue 3, point 2): builds Fuzz/FuzzLoad.swift together with the library's
# sources as a libFuzzer target with AddressSanitizer, replays every input in Fuzz/crashes/ (each
# must no longer crash), then fuzzes for SECONDS (default 60), starting from a copy of the seed
# corpus Fuzz/corpus/ in .fuzz/ (git-ignored).
#
# Usage:
#   scripts/fuzz.sh [SECONDS]             fuzz; exits non-zero on a crash, a hang (> 10 s per
#                                         input) or running out of memory (> 2 GB), and copies the
#                                         input into Fuzz/crashes/
#   scripts/fuzz.sh --generate-corpus     rewrites Fuzz/corpus/ with Fuzz/GenerateCorpus.swift
#   scripts/fuzz.sh --reproduce FILE...   runs the target once on each file
# Prints `fuzz: executions: N, seconds: S, crashes: C`.
set -euo pipefail

cd "$(dirname "$0")/.."
mkdir -p .fuzz

# The flags Package.swift gives every target; the fuzz target is compiled into the module.
swift_flags=(
    -parse-as-library -swift-version 6 -module-name AppSettings -package-name AppSettings
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility
)

# Rebuilds `output` when it is missing or older than any source.
build() {
    local output=$1
    shift
    if [[ -x "$output" ]] && [[ -z "$(find Sources/AppSettings Fuzz -name '*.swift' -newer "$output")" ]]; then
        return
    fi
    echo "building $output" >&2
    # From a snapshot of the sources, so that edits made meanwhile do not break the build.
    rm -rf .fuzz/sources
    mkdir -p .fuzz/sources
    cp -R Sources/AppSettings .fuzz/sources/
    local sources=()
    while IFS= read -r file; do sources+=("$file"); done < <(find .fuzz/sources -name '*.swift' | sort)
    # ld.gold warns about every ASan symbol it cannot export; the warnings are harmless.
    rm -f "$output"
    if ! swiftc "${swift_flags[@]}" "$@" "${sources[@]}" -o "$output.partial" 2>.fuzz/build.log; then
        grep -v "Cannot export local symbol" .fuzz/build.log >&2
        exit 2
    fi
    mv "$output.partial" "$output"
}

if [[ "${1:-}" == "--generate-corpus" ]]; then
    build .fuzz/generate-corpus -O Fuzz/FuzzSettings.swift Fuzz/GenerateCorpus.swift
    rm -rf Fuzz/corpus
    .fuzz/generate-corpus Fuzz/corpus
    exit 0
fi

build .fuzz/fuzz-load -O -sanitize=fuzzer,address Fuzz/FuzzSettings.swift Fuzz/FuzzLoad.swift
# Swift's own crash reporter would pause a crashing run; libFuzzer reports crashes itself.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"

if [[ "${1:-}" == "--reproduce" ]]; then
    shift
    exec .fuzz/fuzz-load -runs=1 "$@"
fi

seconds=${1:-60}
run=".fuzz/run-$$"
rm -rf "$run"
mkdir -p "$run/corpus" "$run/artifacts"
cp Fuzz/corpus/* "$run/corpus/"
trap 'rm -rf "$run"' EXIT

# Every input that ever crashed the target is a regression test.
regressions=0
if compgen -G "Fuzz/crashes/*" >/dev/null; then
    for input in Fuzz/crashes/*; do
        [[ "$input" == *.md ]] && continue
        if ! .fuzz/fuzz-load -runs=1 -timeout=10 -rss_limit_mb=2048 "$input" >"$run/replay.log" 2>&1; then
            regressions=$((regressions + 1))
            echo "REGRESSION: $input crashes again:" >&2
            grep -E "Fatal error|ERROR|SUMMARY" "$run/replay.log" | head -5 >&2
        fi
    done
fi

# Leaks are not checked: corelibs' NSKeyedUnarchiver leaks a CFError for every input it rejects,
# and LeakSanitizer does not see the pointers to Swift's weak-reference side tables.
status=0
.fuzz/fuzz-load "$run/corpus" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 -detect_leaks=0 \
    -artifact_prefix="$run/artifacts/" -print_final_stats=1 -print_pcs=0 \
    >"$run/fuzz.log" 2>&1 || status=$?

executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/fuzz.log" | tail -n 1)
crashes=0
if compgen -G "$run/artifacts/*" >/dev/null; then
    mkdir -p Fuzz/crashes
    for artifact in "$run/artifacts/"*; do
        crashes=$((crashes + 1))
        cp "$artifact" Fuzz/crashes/
        echo "CRASH: saved Fuzz/crashes/$(basename "$artifact")" >&2
    done
    grep -E "Fatal error|ERROR:|SUMMARY|^    #[0-9] " "$run/fuzz.log" | head -30 >&2
elif ((status != 0)); then
    crashes=1
    tail -n 30 "$run/fuzz.log" >&2
fi
grep -E "^#[0-9]+ *DONE" "$run/fuzz.log" | tail -n 1 >&2 || true
echo "fuzz: executions: ${executions:-0}, seconds: $seconds, crashes: $crashes, regressions: $regressions"
((crashes == 0 && regressions == 0))

#!/usr/bin/env bash
# Several processes (issue 3, point 7).
#
# 1. Different sets, one suite: ROUNDS times (default 100), PROCESSES host processes (default 3)
#    start together, each synchronizing its own settings set (its own key postfix) WRITES times
#    (default 10) into the same fresh suite, reloading from disk every fifth write. Afterwards
#    every set must hold its writer's last whole state. A set that is missing or older, or a writer
#    that reloaded something else than what it had synchronized, is a lost key.
# 2. One set, two writers of the same settings: SAME_ROUNDS times (default 50), two processes
#    synchronize the SAME set with different whole triples (counter n, label "v<n>", values
#    [n, n, n]; one writer counts from 1000, the other from 2000). The result must be one writer's
#    last triple, whole: never a mix of the two, never an older one. Since synchronizations merge
#    (issue 11), this checks the conflict rule: each writer changed all three settings since its
#    last save, so the later synchronization wins all three, and a merge never mixes them.
# 3. One set, writers of different settings: MERGE_ROUNDS times (default 50), three processes
#    synchronize the SAME set at once, each changing only its own setting (counter to 1…WRITES,
#    label to "l1"…"l<WRITES>", values to [1]…[WRITES]), reloading every fifth write. Every
#    writer's last value must be stored: a change another writer's synchronization dropped is lost.
#
# Usage: scripts/multiprocess-test.sh [ROUNDS]
#        (PROCESSES, WRITES, SAME_ROUNDS, MERGE_ROUNDS, SCRATCH_PATH)
# Prints `rounds: R, lost keys: N`, `same-set rounds: S, mixed or stale: M` and
# `merge rounds: G, lost changes: L`; exits non-zero when N, M or L is not 0.
set -euo pipefail

rounds=${1:-100}
processes=${PROCESSES:-3}
writes=${WRITES:-10}
same_rounds=${SAME_ROUNDS:-50}
merge_rounds=${MERGE_ROUNDS:-50}
cd "$(dirname "$0")/.."

source scripts/build-test-host.sh

# A private configuration directory: corelibs and the library keep their files under it.
work=$(mktemp -d "${TMPDIR:-/tmp}/appsettings-multiprocess.XXXXXX")
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"

start=$(date +%s%N)
lost=0
for ((round = 1; round <= rounds; round++)); do
    rm -rf "$XDG_CONFIG_HOME" && mkdir -p "$XDG_CONFIG_HOME"
    suite="MultiProcess-$$-$round"
    pids=()
    for ((process = 1; process <= processes; process++)); do
        "$host" write-many "$suite" "Set$process" "$writes" >"$work/out$process" 2>"$work/err$process" &
        pids+=($!)
    done
    for process in "${!pids[@]}"; do
        if ! wait "${pids[$process]}"; then
            lost=$((lost + 1))
            echo "round $round: writer $((process + 1)) failed: $(head -c 300 "$work/err$((process + 1))")" >&2
        fi
    done
    for ((process = 1; process <= processes; process++)); do
        state=$("$host" state "$suite" "Set$process" 2>&1)
        if [[ "$state" != "counter=$writes consistent=yes "*"error=no"* ]]; then
            lost=$((lost + 1))
            echo "round $round: Set$process lost: $state" >&2
        fi
    done
done
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
printf 'different sets: %d processes x %d synchronizations per round, time: %d.%01d s\n' \
    "$processes" "$writes" $((elapsed_ms / 1000)) $((elapsed_ms % 1000 / 100))
echo "rounds: $rounds, lost keys: $lost"

start=$(date +%s%N)
mixed=0
wins_first=0
for ((round = 1; round <= same_rounds; round++)); do
    rm -rf "$XDG_CONFIG_HOME" && mkdir -p "$XDG_CONFIG_HOME"
    suite="SameSet-$$-$round"
    "$host" write-many "$suite" Same "$writes" 1000 shared >"$work/outA" 2>"$work/errA" &
    first=$!
    "$host" write-many "$suite" Same "$writes" 2000 shared >"$work/outB" 2>"$work/errB" &
    second=$!
    failed=0
    wait "$first" || failed=1
    wait "$second" || failed=1
    state=$("$host" state "$suite" Same 2>&1)
    last_a=$((1000 + writes - 1))
    last_b=$((2000 + writes - 1))
    if ((failed)); then
        mixed=$((mixed + 1))
        echo "same set, round $round: a writer failed: $(cat "$work/errA" "$work/errB" | head -c 300)" >&2
    elif [[ "$state" == "counter=$last_a consistent=yes "*"error=no"* ]]; then
        wins_first=$((wins_first + 1))
    elif [[ "$state" != "counter=$last_b consistent=yes "*"error=no"* ]]; then
        mixed=$((mixed + 1))
        echo "same set, round $round: neither writer's last state won whole: $state" >&2
    fi
done
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
printf 'same set: the writer counting from 1000 won %d times, the other %d times, time: %d.%01d s\n' \
    "$wins_first" $((same_rounds - wins_first - mixed)) $((elapsed_ms / 1000)) $((elapsed_ms % 1000 / 100))
echo "same-set rounds: $same_rounds, mixed or stale: $mixed"

start=$(date +%s%N)
lost_changes=0
settings=(counter label values)
for ((round = 1; round <= merge_rounds; round++)); do
    rm -rf "$XDG_CONFIG_HOME" && mkdir -p "$XDG_CONFIG_HOME"
    suite="Merge-$$-$round"
    pids=()
    for setting in "${settings[@]}"; do
        "$host" set-many "$suite" Merged "$setting" "$writes" >"$work/out-$setting" 2>"$work/err-$setting" &
        pids+=($!)
    done
    failed=0
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    fields=$("$host" fields "$suite" Merged 2>&1)
    if ((failed)); then
        lost_changes=$((lost_changes + 1))
        echo "merge, round $round: a writer failed: $(cat "$work"/err-* | head -c 300)" >&2
    elif [[ "$fields" != "counter=$writes label=l$writes values=$writes" ]]; then
        lost_changes=$((lost_changes + 1))
        echo "merge, round $round: a change was lost: $fields" >&2
    fi
done
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
printf 'one set, %d writers of different settings x %d synchronizations per round, time: %d.%01d s\n' \
    "${#settings[@]}" "$writes" $((elapsed_ms / 1000)) $((elapsed_ms % 1000 / 100))
echo "merge rounds: $merge_rounds, lost changes: $lost_changes"
((lost == 0 && mixed == 0 && lost_changes == 0))

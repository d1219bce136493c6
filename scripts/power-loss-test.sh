#!/usr/bin/env bash
# Power loss (issues 22 and 29): records the file-system calls of real saves with `strace -f`,
# builds every state a power loss during them can leave on disk under ALICE's model of ext4 with
# data=ordered, for every interleaving of a save's two threads (the recovery copy's and the
# domain's), and loads each state in a fresh process, as it is and with the domain's keys removed.
# The set being saved must load as it was before the save or after it, and every other set as its
# last save left it.
#
# Scenarios, each in a scratch HOME of its own: saves in a row; several sets saved in turns by two
# processes; a merge with another writer; sets larger than a 4 KiB block that outgrow their slots;
# an earlier version's plain copy converted; a suite removed. The model and the scenarios are in
# scripts/powerloss/ (Python 3, standard library only), run by scripts/power-loss-states.py.
#
# With --self-test, then proves the test can fail: a test host built with
# `-Xswiftc -DAPPSETTINGS_INJECTED_FAULTS` (debug, in a build directory of its own; see
# Sources/AppSettings/Internal/Support/InjectedFault.swift) runs with each deliberate bug
# (no directory flush after the rename, writing the slot that holds the newest copy, no fdatasync
# after the slot write, no checksum check on read, the domain file rewritten in place as corelibs
# does), on the ordinary schedule and with the copy's
# thread 30 ms late; each run must find lost or mixed states. The same host without a bug, copy
# 30 ms late, must find none.
#
# Usage: scripts/power-loss-test.sh [--self-test]   (SCRATCH_PATH=... to build elsewhere than .build)
# Prints, per scenario and in all, `crash states: N, lost: L, mixed: M, unreadable: U, other keys
# lost: O` (O: states whose domain file lost one of the app's own keys or a backup; each loss,
# and what was recorded, on standard error), then one line per mutant. Exits non-zero when L or M
# is not 0, when a writing call the model does not describe was recorded, when fewer than 50
# states were explored, or when the self-test missed a bug.
set -euo pipefail

cd "$(dirname "$0")/.."

self_test=0
if [[ "${1:-}" == "--self-test" ]]; then self_test=1; fi

# CI machines are fresh: strace is installed when missing (Debian's package).
if ! command -v strace >/dev/null; then
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
    "${sudo[@]}" apt-get update >&2
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y strace >&2
fi

source scripts/build-test-host.sh

work=$(mktemp -d "${TMPDIR:-/tmp}/appsettings-power-loss.XXXXXX")
trap 'rm -rf "$work"' EXIT
states=(python3 scripts/power-loss-states.py)

# The model refuses the calls it does not describe (hand-written calls; a fraction of a second).
"${states[@]}" --check-model

echo "--- the library as built"
status=0
"${states[@]}" "$host" "$work/release" "$(command -v strace)" || status=$?
if [[ $status -ne 0 || $self_test -eq 0 ]]; then exit "$status"; fi

# The self-test's host: the deliberate bugs compiled in, chosen by the environment. A debug build
# (about half the time of a release one; it makes the same file-system calls, and every
# interleaving of the two threads is explored whatever their speed).
faults_scratch="${SCRATCH_PATH:-.build}/injected-faults"
faults_flags=(--product AppSettingsTestHost --scratch-path "$faults_scratch" -Xswiftc -DAPPSETTINGS_INJECTED_FAULTS)
swift build "${faults_flags[@]}" >&2
faults_host="$(swift build "${faults_flags[@]}" --show-bin-path)/AppSettingsTestHost"

# The mutants run the scenarios that write slots in place, tear them across blocks, overwrite a
# copy whose two slots hold sets, and rename a new file into place (the others add schedules, not
# kinds of writes).
# With the copy 30 ms late, two of them (each bug is caught in one of the two).
mutant_scenarios=(--scenario "saves in a row" --scenario "larger than a block, outgrowing the slots"
    --scenario "larger than a block, both slots written before")
delayed_scenarios=(--scenario "saves in a row" --scenario "larger than a block, both slots written before")

# run_case NAME FAULT DELAY: one run in the background; its output and exit status in $work/NAME.*
# (1: lost or mixed states found; 0: none; 2: the run itself failed). Loads mostly wait (corelibs
# sleeps before it gives up a damaged domain file), so four runs share the two cores.
run_case() {
    local name=$1 fault=$2 delay=$3 status=0 scenarios=("${mutant_scenarios[@]}")
    if [[ $delay -ne 0 ]]; then scenarios=("${delayed_scenarios[@]}"); fi
    env ${fault:+APPSETTINGS_INJECTED_FAULT=$fault} APPSETTINGS_RECOVERY_COPY_DELAY_MS="$delay" \
        "${states[@]}" "$faults_host" "$work/$name" "$(command -v strace)" "${scenarios[@]}" --quiet \
        >"$work/$name.out" 2>"$work/$name.err" || status=$?
    echo "$status" >"$work/$name.status"
}

cases=("clean 30" "no-directory-flush 0" "no-directory-flush 30" "newest-slot 0" "newest-slot 30"
    "no-slot-flush 0" "no-slot-flush 30" "no-checksum 0" "no-checksum 30" "domain-in-place 0")
running=0
for entry in "${cases[@]}"; do
    read -r fault delay <<<"$entry"
    if [[ $running -ge 4 ]]; then wait -n; running=$((running - 1)); fi
    run_case "$fault-$delay" "$([[ $fault == clean ]] || echo "$fault")" "$delay" &
    running=$((running + 1))
done
wait

failed=()
for entry in "${cases[@]}"; do
    read -r fault delay <<<"$entry"
    name="$fault-$delay"
    status=$(cat "$work/$name.status")
    if [[ $fault == clean ]]; then
        echo "--- no bug, the copy's thread ${delay} ms late"
    else
        echo "--- mutant $fault, the copy's thread ${delay} ms late"
    fi
    sed 's/^/    /' "$work/$name.out"
    if [[ $status -eq 2 || ( $status -ne 0 && $status -ne 1 ) ]]; then
        sed 's/^/    /' "$work/$name.err"
        echo "$name: the run failed (exit $status)"
        failed+=("$name")
    elif [[ $fault == clean && $status -ne 0 ]]; then
        echo "no bug, copy ${delay} ms late: FAILED (lost or mixed states)"
        failed+=("$name")
    elif [[ $fault != clean && $status -eq 0 ]]; then
        echo "mutant $fault (${delay} ms): MISSED"
        failed+=("$name")
    elif [[ $fault != clean ]]; then
        echo "mutant $fault (${delay} ms): caught"
    fi
done
if [[ ${#failed[@]} -ne 0 ]]; then
    echo "power-loss self-test: failed: ${failed[*]}" >&2
    exit 1
fi
echo "power-loss self-test: every deliberate bug caught, on both schedules; none without a bug"

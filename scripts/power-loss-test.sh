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
# scripts/power-loss-states.py (Python 3, standard library only).
#
# With --self-test, then proves the test can fail: a test host built with
# `-Xswiftc -DAPPSETTINGS_INJECTED_FAULTS` (in its own build directory; see
# Sources/AppSettings/Internal/Support/InjectedFault.swift) runs with each deliberate bug
# (no directory flush after the rename, writing the slot that holds the newest copy, no fdatasync
# after the slot write, no checksum check on read), on the ordinary schedule and with the copy's
# thread 30 ms late; each run must find lost or mixed states. The same host without a bug, copy
# 30 ms late, must find none.
#
# Usage: scripts/power-loss-test.sh [--self-test]   (SCRATCH_PATH=... to build elsewhere than .build)
# Prints, per scenario and in all, `crash states: N, lost: L, mixed: M, unreadable: U` (each loss,
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

echo "--- the library as built"
status=0
"${states[@]}" "$host" "$work/release" "$(command -v strace)" || status=$?
if [[ $status -ne 0 || $self_test -eq 0 ]]; then exit "$status"; fi

# The self-test's host: the deliberate bugs compiled in, chosen by the environment.
faults_scratch="${SCRATCH_PATH:-.build}-injected-faults"
faults_flags=(-c release --product AppSettingsTestHost --scratch-path "$faults_scratch"
    -Xswiftc -DAPPSETTINGS_INJECTED_FAULTS)
swift build "${faults_flags[@]}" >&2
faults_host="$(swift build "${faults_flags[@]}" --show-bin-path)/AppSettingsTestHost"

# The mutants run the scenarios that write slots in place, tear them across blocks and rename a new
# file into place (the others add schedules, not kinds of writes).
mutant_scenarios=(--scenario "saves in a row" --scenario "larger than a block, outgrowing the slots")

echo "--- no bug, the copy's thread 30 ms late"
status=0
APPSETTINGS_RECOVERY_COPY_DELAY_MS=30 "${states[@]}" "$faults_host" "$work/delayed" "$(command -v strace)" \
    "${mutant_scenarios[@]}" --quiet || status=$?
if [[ $status -ne 0 ]]; then
    echo "power-loss self-test: the library without a bug failed with its copy 30 ms late" >&2
    exit 1
fi

missed=()
for fault in no-directory-flush newest-slot no-slot-flush no-checksum; do
    for delay in 0 30; do
        echo "--- mutant $fault, the copy's thread ${delay} ms late"
        status=0
        APPSETTINGS_INJECTED_FAULT=$fault APPSETTINGS_RECOVERY_COPY_DELAY_MS=$delay \
            "${states[@]}" "$faults_host" "$work/$fault-$delay" "$(command -v strace)" "${mutant_scenarios[@]}" \
            --quiet >"$work/out" || status=$?
        sed 's/^/    /' "$work/out"
        # 1: lost or mixed states found (the bug was caught); 0: missed; 2: the run itself failed.
        case $status in
            1) echo "mutant $fault (${delay} ms): caught ($(tail -n 1 "$work/out"))" ;;
            0) echo "mutant $fault (${delay} ms): MISSED"; missed+=("$fault/${delay}ms") ;;
            *) echo "mutant $fault (${delay} ms): the run failed (exit $status)"; missed+=("$fault/${delay}ms") ;;
        esac
    done
done
if [[ ${#missed[@]} -ne 0 ]]; then
    echo "power-loss self-test: missed ${missed[*]}" >&2
    exit 1
fi
echo "power-loss self-test: every deliberate bug caught, on both schedules"

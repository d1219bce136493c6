#!/usr/bin/env bash
# The random-schedule suite's mutation self-test (issue 37): each deliberately broken variant of
# the sync rules (`CloudSyncMutation`, Sources/AppSettings/Internal/Support/InjectedFault.swift),
# compiled in only with -DAPPSETTINGS_INJECTED_FAULTS, must be caught by the invariant it breaks
# (SyncScheduleTests.mutationIsCaught prints the seed that caught it). The build has a directory
# of its own, shared with the power-loss test's self-test.
#
# Usage: scripts/sync-mutation-test.sh [mutation ...]   (default: every one)
# Environment: SCRATCH_PATH  SwiftPM build directory (default: .build)
set -euo pipefail

cd "$(dirname "$0")/.."
scratch="${SCRATCH_PATH:-.build}/injected-faults"
flags=(--scratch-path "$scratch" -Xswiftc -DAPPSETTINGS_INJECTED_FAULTS)
swift build --build-tests "${flags[@]}"

mutations=("$@")
if [ ${#mutations[@]} -eq 0 ]; then
    mutations=($(sed -n 's/^ *case [a-zA-Z]* = "\([a-z-]*\)"$/\1/p' \
        <(sed -n '/enum CloudSyncMutation/,/^}/p' Sources/AppSettings/Internal/Support/InjectedFault.swift)))
fi
[ ${#mutations[@]} -gt 0 ] || { echo "no mutation found"; exit 1; }

status=0
for mutation in "${mutations[@]}"; do
    echo "--- mutation $mutation"
    log="$(mktemp)"
    if APPSETTINGS_SYNC_MUTATION="$mutation" swift test --skip-build "${flags[@]}" \
        --filter 'SyncScheduleTests/mutationIsCaught' >"$log" 2>&1 \
        && grep -q "mutation $mutation: caught by" "$log"; then
        grep "mutation $mutation: caught by" "$log"
    else
        echo "mutation $mutation was NOT caught:"
        tail -20 "$log"
        status=1
    fi
    rm -f "$log"
done
exit "$status"

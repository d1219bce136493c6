#!/usr/bin/env bash
# The replica schedules' mutation self-test (issue 46): each deliberately broken variant of the
# rule every replica is reconciled by (`ReplicaMutation`,
# Sources/AppSettings/Internal/Support/InjectedFault.swift), compiled in only with
# -DAPPSETTINGS_INJECTED_FAULTS, must be caught by the invariant it breaks
# (ReplicaScheduleTests.mutationIsCaught prints the seed that caught it and its minimal schedule).
# The build directory is the one scripts/sync-mutation-test.sh and the power-loss self-test use.
#
# Usage: scripts/replica-mutation-test.sh [mutation ...]   (default: every one)
# Environment: SCRATCH_PATH  SwiftPM build directory (default: .build)
set -euo pipefail

cd "$(dirname "$0")/.."
scratch="${SCRATCH_PATH:-.build}/injected-faults"
flags=(--scratch-path "$scratch" -Xswiftc -DAPPSETTINGS_INJECTED_FAULTS)
swift build --build-tests "${flags[@]}"

mutations=("$@")
if [ ${#mutations[@]} -eq 0 ]; then
    mutations=($(sed -n 's/^ *case [a-zA-Z]* = "\([a-z-]*\)"$/\1/p' \
        <(sed -n '/enum ReplicaMutation/,/^}/p' Sources/AppSettings/Internal/Support/InjectedFault.swift)))
fi
[ ${#mutations[@]} -gt 0 ] || { echo "no mutation found"; exit 1; }

status=0
for mutation in "${mutations[@]}"; do
    echo "--- mutation $mutation"
    log="$(mktemp)"
    if APPSETTINGS_REPLICA_MUTATION="$mutation" swift test --skip-build "${flags[@]}" \
        --filter 'ReplicaScheduleTests/mutationIsCaught' >"$log" 2>&1 \
        && grep -q "mutation $mutation: caught by" "$log"; then
        sed -n "/mutation $mutation: caught by/,/^[^ m]/p" "$log" | grep -v '^[✔✘◇↳]'
    else
        echo "mutation $mutation was NOT caught:"
        tail -20 "$log"
        status=1
    fi
    rm -f "$log"
done
exit "$status"

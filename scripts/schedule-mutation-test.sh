#!/usr/bin/env bash
# A random-schedule suite's mutation self-test, shared by scripts/sync-mutation-test.sh and
# scripts/replica-mutation-test.sh: each deliberately broken variant of the rules in the enum
# given (Sources/AppSettings/Internal/Support/InjectedFault.swift), compiled in only with
# -DAPPSETTINGS_INJECTED_FAULTS, must be caught by the invariant it breaks (the suite's
# mutationIsCaught prints the seed that caught it, and the replica suite its minimal schedule).
# The build has a directory of its own, shared by both and the power-loss test's self-test.
#
# Usage: scripts/schedule-mutation-test.sh <enum> <environment variable> <suite> [mutation ...]
#        (default: every case of the enum)
# Environment: SCRATCH_PATH  SwiftPM build directory (default: .build)
set -euo pipefail

cd "$(dirname "$0")/.."
enum="$1" variable="$2" suite="$3"
shift 3
scratch="${SCRATCH_PATH:-.build}/injected-faults"
flags=(--scratch-path "$scratch" -Xswiftc -DAPPSETTINGS_INJECTED_FAULTS)
swift build --build-tests "${flags[@]}"

mutations=("$@")
if [ ${#mutations[@]} -eq 0 ]; then
    mutations=($(sed -n 's/^ *case [a-zA-Z]* = "\([a-z-]*\)"$/\1/p' \
        <(sed -n "/enum $enum/,/^}/p" Sources/AppSettings/Internal/Support/InjectedFault.swift)))
fi
[ ${#mutations[@]} -gt 0 ] || { echo "no mutation of $enum found"; exit 1; }

status=0
for mutation in "${mutations[@]}"; do
    echo "--- mutation $mutation"
    log="$(mktemp)"
    if env "$variable=$mutation" swift test --skip-build "${flags[@]}" \
        --filter "$suite/mutationIsCaught" >"$log" 2>&1 \
        && grep -q "mutation $mutation: caught by" "$log"; then
        awk -v line="mutation $mutation: caught by" \
            'index($0, line) == 1 { shown = 1; print; next } shown && /^( |minimal)/ { print; next } { shown = 0 }' "$log"
    else
        echo "mutation $mutation was NOT caught:"
        tail -20 "$log"
        status=1
    fi
    rm -f "$log"
done
exit "$status"

#!/usr/bin/env bash
# Power loss (issue 22): records the file-system calls of real saves with `strace -f`, builds every
# state a power loss during them can leave on disk under ALICE's model of ext4 with data=ordered,
# and loads each state in a fresh process. The set being saved must load as it was before the save
# or after it, and every other set as its last save left it.
#
# Scenarios, each in a scratch HOME of its own: the first save of a set into a new suite and three
# more saves in a row; three sets in one suite saved in turns by two processes (one set's first save
# into a domain that holds the others); a save that merges another writer's change. The model and
# the scenarios are in scripts/power-loss-states.py (Python 3, standard library only).
#
# Usage: scripts/power-loss-test.sh        (SCRATCH_PATH=... to build elsewhere than .build)
# Prints `crash states: N, lost: L, mixed: M` (each loss, and what was recorded, on standard error)
# and exits non-zero when L or M is not 0, or when fewer than 50 states were explored.
set -euo pipefail

cd "$(dirname "$0")/.."

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

python3 scripts/power-loss-states.py "$host" "$work" "$(command -v strace)"

#!/usr/bin/env bash
# The replica schedules' mutation self-test (issue 46): each deliberately broken variant of the
# rule every replica is reconciled by (`ReplicaMutation`,
# Sources/AppSettings/Internal/Support/InjectedFault.swift), compiled in only with
# -DAPPSETTINGS_INJECTED_FAULTS, must be caught by the invariant it breaks
# (ReplicaScheduleTests.mutationIsCaught prints the seed that caught it and its minimal schedule).
# See scripts/schedule-mutation-test.sh.
#
# Usage: scripts/replica-mutation-test.sh [mutation ...]   (default: every one)
# Environment: SCRATCH_PATH  SwiftPM build directory (default: .build)
set -euo pipefail
exec bash "$(dirname "$0")/schedule-mutation-test.sh" ReplicaMutation APPSETTINGS_REPLICA_MUTATION ReplicaScheduleTests "$@"

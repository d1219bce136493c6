#!/usr/bin/env bash
# The random-schedule suite's mutation self-test (issue 37): each deliberately broken variant of
# the sync rules (`CloudSyncMutation`, Sources/AppSettings/Internal/Support/InjectedFault.swift),
# compiled in only with -DAPPSETTINGS_INJECTED_FAULTS, must be caught by the invariant it breaks
# (SyncScheduleTests.mutationIsCaught prints the seed that caught it). See
# scripts/schedule-mutation-test.sh.
#
# Usage: scripts/sync-mutation-test.sh [mutation ...]   (default: every one)
# Environment: SCRATCH_PATH  SwiftPM build directory (default: .build)
set -euo pipefail
exec bash "$(dirname "$0")/schedule-mutation-test.sh" CloudSyncMutation APPSETTINGS_SYNC_MUTATION SyncScheduleTests "$@"

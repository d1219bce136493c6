#!/usr/bin/env bash
# Crash safety (issue 3, point 6): kills a process that synchronizes settings in a loop with
# SIGKILL at random moments, KILLS times (default 200), and checks after each kill that a fresh
# load gives a whole settings set (counter n, label "v<n>", values [n, n, n]) at least as new as
# the last one the process reported synchronized, and that every other key of the suite is still
# in its domain file: OTHERS plain keys of the app's own (default 20) and a backup of the set's
# key (`<key>.unreadable-<ms>`), stored before the first round. A round that loses any is a loss.
#
# All rounds use ONE suite: every round starts from what the previous kill left behind (a damaged
# domain file included), so damage that a round fails to repair is found by the next rounds too,
# and the counter only grows across rounds.
#
# A third of the kills come 0–99 ms after launch (during start-up, the first load or a sync); the
# others 0–99 ms or 0–9 ms after the round's first synchronization returned, when the loop does
# nothing but synchronize, so they land inside `synchronizeToUserDefaults()`.
#
# Usage: scripts/kill-test.sh [KILLS [OTHERS]]   (SCRATCH_PATH=... to build elsewhere than .build)
# Prints `kills: K, losses: N, other keys lost: O, backups lost: B` and exits non-zero when any
# of them is not 0.
set -euo pipefail

kills=${1:-200}
others=${2:-20}
cd "$(dirname "$0")/.."

source scripts/build-test-host.sh

# A private configuration directory: corelibs and the library both keep their files under
# $XDG_CONFIG_HOME, so nothing outside it is touched.
work=$(mktemp -d "${TMPDIR:-/tmp}/appsettings-kill.XXXXXX")
pid=""
trap 'if [[ -n "$pid" ]]; then kill -9 "$pid" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"
mkdir -p "$XDG_CONFIG_HOME"

suite="KillTest-$$"
postfix="Kill"
start=$(date +%s%N)
losses=0
recovered=0     # the domain had lost the key (damaged or truncated file): loaded from the copy
fresh_damage=0  # of those, rounds whose kill damaged a domain that was intact before
previous_intact=1
no_print=0      # killed before the first synchronization of the round returned
last_synced=0   # the newest counter a loop reported synchronized, over all rounds
others_lost=0   # plain keys missing after a kill, summed over rounds
backups_lost=0  # the backup missing after a kill, summed over rounds

"$host" seed-others "$suite" "$postfix" "$others" >/dev/null

for ((round = 1; round <= kills; round++)); do
    out="$work/out"
    err="$work/err"
    : >"$out"
    "$host" sync-loop "$suite" "$postfix" >"$out" 2>"$err" &
    pid=$!
    if ((round % 3 != 0)); then
        polls=0
        while [[ ! -s "$out" ]] && ((polls++ < 1000)); do sleep 0.002; done
    fi
    if ((round % 3 == 2)); then
        sleep "0.00$((RANDOM % 10))"
    else
        sleep "0.$(printf '%03d' $((RANDOM % 100)))"
    fi
    died_by_itself=0
    kill -9 "$pid" 2>/dev/null || died_by_itself=1
    wait "$pid" 2>/dev/null || true

    printed=$(tail -n 1 "$out" | tr -dc '0-9')
    if [[ -n "$printed" ]]; then
        ((printed > last_synced)) && last_synced=$printed
    else
        no_print=$((no_print + 1))
    fi

    state=$("$host" state "$suite" "$postfix" 2>"$work/state-err")
    counter=$(sed -n 's/.*counter=\([0-9-]*\).*/\1/p' <<<"$state")
    problem=""
    if ((died_by_itself)) || grep -q '^AppSettingsTestHost:' "$err"; then
        problem="the loop stopped by itself: $(head -c 300 "$err")"
    elif [[ "$state" != *"consistent=yes"* ]]; then
        problem="inconsistent state"
    elif [[ "$state" == *"error=yes"* ]]; then
        problem="load error: $(head -c 300 "$work/state-err")"
    elif [[ -z "$counter" ]] || ((counter < last_synced)); then
        problem="counter ${counter:-?} is older than the last synchronized $last_synced"
    fi
    # Every other key of the suite and the backup, read from the domain file as it is on disk.
    kept=$("$host" others "$suite" "$postfix" "$others")
    kept_others=$(sed -n 's/.*others=\([0-9]*\)\/.*/\1/p' <<<"$kept")
    kept_backups=$(sed -n 's/.*backups=\([0-9]*\)\/.*/\1/p' <<<"$kept")
    if [[ "${kept_others:-0}" -ne "$others" || "${kept_backups:-0}" -ne 1 ]]; then
        others_lost=$((others_lost + others - ${kept_others:-0}))
        backups_lost=$((backups_lost + 1 - ${kept_backups:-0}))
        problem="${problem:+$problem; }the domain file lost keys: $kept"
    fi
    if [[ -n "$problem" ]]; then
        losses=$((losses + 1))
        echo "round $round: LOSS: $problem [$state]" >&2
    fi
    if [[ "$state" != *"domain=has-key"* ]]; then
        recovered=$((recovered + 1))
        if ((previous_intact)) || [[ -n "$printed" ]]; then fresh_damage=$((fresh_damage + 1)); fi
        previous_intact=0
        echo "round $round: domain ${state##*domain=}; loaded counter $counter from the recovery copy" >&2
    else
        previous_intact=1
    fi
    if [[ -n "${VERBOSE:-}" ]]; then echo "round $round: printed ${printed:--} -> $state" >&2; fi
done

elapsed_ms=$((($(date +%s%N) - start) / 1000000))
printf 'last synchronized counter: %d, rounds killed before their first sync returned: %d\n' \
    "$last_synced" "$no_print"
printf 'domain damaged or without the key after the kill (loaded from the recovery copy): %d of %d' \
    "$recovered" "$kills"
printf ' (%d damaged by that kill, the others left damaged by an earlier round)\n' "$fresh_damage"
printf 'time: %d.%01d s\n' $((elapsed_ms / 1000)) $((elapsed_ms % 1000 / 100))
echo "kills: $kills, losses: $losses, other keys lost: $others_lost, backups lost: $backups_lost"
((losses == 0))

"""Runs the scenarios, checks every crash state, and prints the report (the command line)."""

import concurrent.futures
import os
import re
import sys

from .checking import classify, damaged_domains, is_scratch, load, materialize, without_keys
from .modelcheck import check_model
from .recording import read_calls, run_scenario, set_up
from .resolver import Resolver
from .scenarios import OTHER_KEYS, SCENARIOS, missing_other_keys, sets_of
from .states import build_program, explore


def run(host, work, strace, title, scenario, quiet, keep, pool):
    home = os.path.join(work, re.sub(r"\W+", "-", title), "home")
    os.makedirs(home)
    home = os.path.realpath(home)
    sets = sets_of(scenario)
    setup_marks = set_up(host, home, scenario)
    resolver = Resolver(home)
    # The setup's files, as they were when the recording began (durable).
    resolver.scan_initial()
    traces = run_scenario(host, strace, home, scenario)
    program = build_program(resolver, read_calls(traces))
    if resolver.problems:
        for problem in resolver.problems:
            print(f"{title}: a writing call the model does not describe: {problem}", file=sys.stderr)
        return None
    explorer, found, schedules = explore(resolver, [("mark", text) for text in setup_marks], program, sets)
    domain_relative = os.path.relpath(resolver.domain_path, home)

    # Every state twice: as it is, and with the domain file's keys of the sets removed.
    variants = {}   # (state id, without keys) -> files to materialize
    others_lost = 0  # states whose domain file lost one of the app's own keys or the backup
    for identifier, _ in found:
        files = [(path, None if content == -1 else explorer.content_bytes[content if content >= 0 else -2 - content])
                 for path, content in explorer.states[identifier]]
        variants[(identifier, False)] = files
        domain = [data for path, data in files if path == domain_relative]
        if scenario.others:
            missing = missing_other_keys(domain[0] if domain else None)
            if missing:
                others_lost += 1
                if not quiet and others_lost <= 3:
                    print(f"{title}: the domain file lost {missing} of the {len(OTHER_KEYS)} other keys "
                          f"({len(domain[0]) if domain and domain[0] is not None else 'no'} bytes)", file=sys.stderr)
        stripped = without_keys(domain[0], sets) if domain and domain[0] is not None else None
        if stripped is not None:
            variants[(identifier, True)] = [(path, stripped if path == domain_relative else data)
                                            for path, data in files]
    # A domain file corelibs cannot read loads as an empty domain, whatever its bytes: such states
    # are loaded with one of them (corelibs waits 450 ms before it gives one up).
    unreadable_domains = damaged_domains(host, work, {data for files in variants.values()
                                                      for path, data in files if path == domain_relative})
    if unreadable_domains:
        representative = min(unreadable_domains)
        for key, files in variants.items():
            variants[key] = [(path, representative if path == domain_relative and data in unreadable_domains
                              else data) for path, data in files]
    # Loads: by the bytes of what is materialized (temporary files told apart only by name).
    by_files = {}
    for key, files in variants.items():
        by_files.setdefault(repr([(path, data if not is_scratch(explorer, key[0], path) else b"")
                                  for path, data in files]), []).append(key)
    jobs = {}
    for index, (digest, keys) in enumerate(by_files.items()):
        directory = os.path.join(work, "load", str(index % 64))
        jobs[digest] = (directory, variants[keys[0]])
    results = {}
    for start in range(0, len(jobs), 48):
        batch = list(jobs.items())[start:start + 48]
        futures = {pool.submit(load, host, directory, files, sets): digest for digest, (directory, files) in batch}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()
    loaded_by_key = {key: results[digest] for digest, keys in by_files.items() for key in keys}

    counts = {False: 0, True: 0}
    lost = mixed = unreadable = 0
    for identifier, accepted in sorted(found, key=repr):
        for stripped in (False, True):
            if (identifier, stripped) not in loaded_by_key:
                continue
            counts[stripped] += 1
            loaded = loaded_by_key[(identifier, stripped)]
            outcomes = {name: classify(loaded[name], expected, stripped) for name, expected, _ in accepted}
            if "lost" in outcomes.values():
                lost += 1
            elif "mixed" in outcomes.values():
                mixed += 1
            elif "unreadable" in outcomes.values():
                unreadable += 1
                if unreadable > 3:
                    continue   # every loss is shown; of the unreadable states (a known limit), three
            else:
                continue
            if not quiet:
                report = "; ".join(
                    f"{name}{' (in flight)' if flight else ''} loaded {loaded[name]!r}, accepted "
                    f"{' or '.join(map(repr, expected))}" for name, expected, flight in accepted
                    if outcomes[name] != "ok")
                files = ", ".join(f"{path} ({'dir' if data is None else f'{len(data)} B'})"
                                  for path, data in variants[(identifier, stripped)]) or "no files"
                print(f"{title}{' (domain without the keys)' if stripped else ''}: {report} [{files}]",
                      file=sys.stderr)
                if keep:
                    kept = os.path.join(keep, f"{re.sub(r'[^A-Za-z0-9]+', '-', title)}-{lost + mixed}")
                    print(f"  kept in {kept}", file=sys.stderr)
                    materialize(kept, variants[(identifier, stripped)])
    total = counts[False] + counts[True]
    domain_steps = sum(1 for step in program if step[0] != "mark")
    print(f"{title}: {total} crash states ({counts[False]} as left, {counts[True]} with the domain's keys "
          f"removed), {schedules} interleavings of a save's two threads, {len(by_files)} loads, "
          f"{domain_steps} steps; lost: {lost}, mixed: {mixed}, unreadable: {unreadable}"
          + (f", other keys lost: {others_lost}" if scenario.others else ""))
    sys.stdout.flush()
    return total, lost, mixed, unreadable, others_lost


def main():
    arguments = sys.argv[1:]
    if arguments == ["--check-model"]:
        return check_model()
    quiet = "--quiet" in arguments
    chosen = [arguments[index + 1] for index, value in enumerate(arguments) if value == "--scenario"]
    keep = next((arguments[index + 1] for index, value in enumerate(arguments) if value == "--keep"), None)
    positional = [value for index, value in enumerate(arguments)
                  if not value.startswith("--") and (index == 0 or arguments[index - 1] not in ("--scenario", "--keep"))]
    host, work, strace = positional[:3]
    total = lost = mixed = unreadable = others_lost = 0
    unmodelled = False
    # Loads mostly wait: corelibs sleeps 150 ms three times before it gives up a damaged domain file.
    with concurrent.futures.ThreadPoolExecutor(max_workers=12) as pool:
        for title, scenario in SCENARIOS.items():
            if (chosen and title not in chosen) or (not chosen and scenario.known_failure):
                continue
            result = run(host, work, strace, title, scenario, quiet, keep, pool)
            if result is None:
                unmodelled = True
                continue
            total, lost, mixed = total + result[0], lost + result[1], mixed + result[2]
            unreadable += result[3]
            others_lost += result[4]
    print(f"crash states: {total}, lost: {lost}, mixed: {mixed}, unreadable: {unreadable}, "
          f"other keys lost: {others_lost}")
    if unmodelled:
        print("power-loss: the recording holds writing calls the model does not describe (above)", file=sys.stderr)
        return 2
    if total < 50:
        print(f"power-loss: only {total} crash states explored", file=sys.stderr)
        return 2
    return 1 if lost or mixed or others_lost else 0

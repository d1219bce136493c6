"""The program of a recording (what runs in order, what runs at the same time), and every state a
power loss during it can leave under the model."""

import itertools
import math

from . import SUITE

BLOCK = 4096
SECTOR = 512


def build_program(resolver, calls):
    """Steps: ("op", object, id), ("mark", text), ("parallel", [(object, id)...], [...])."""
    program = []
    window = None   # the save in flight: process, prefix, domain thread's and copy's operations

    def is_domain(obj, operation):
        # The domain file itself, or its entry in the configuration directory.
        kind = resolver.operations[operation][0] if isinstance(operation, int) else None
        if obj == resolver.names.get(resolver.domain_path) or obj in domain_objects:
            return True
        if obj == resolver.names.get(resolver.config) and kind in ("link", "rename", "unlink"):
            entry = resolver.operations[operation]
            return entry[1] == SUITE + ".plist" or (kind == "rename" and entry[2] == SUITE + ".plist")
        return False

    domain_objects = set()
    for call in calls:
        for obj, operation in resolver.resolve(call):
            if resolver.names.get(resolver.domain_path) is not None:
                domain_objects.add(resolver.names[resolver.domain_path])
            if isinstance(operation, tuple):   # a mark
                text = operation[1]
                if window is not None and window["process"] == call.process and (
                        text.startswith("@@end ") or text == "@@end-remove"):
                    flush_window(program, window)
                    window = None
                program.append(("mark", text))
                if text.startswith("@@begin"):
                    window = {"process": call.process, "prefix": [], "domain": [], "copy": [], "started": False}
                continue
            step = (obj, operation)
            if window is None or window["process"] != call.process:
                if window is not None:
                    raise SystemExit("power-loss: another process wrote during a save")
                program.append(("op",) + step)
            elif not call.main:
                window["started"] = True
                window["copy"].append(step)
            elif window["started"] or window["domain"] or is_domain(obj, operation):
                window["domain"].append(step)
            else:
                window["prefix"].append(step)
    if window is not None:
        flush_window(program, window)
    return program


def flush_window(program, window):
    program.extend(("op",) + step for step in window["prefix"])
    if window["domain"] and window["copy"]:
        program.append(("parallel", window["domain"], window["copy"]))
    else:
        program.extend(("op",) + step for step in window["domain"] + window["copy"])


# MARK: Model states and what persists of them

def apply_step(state, obj, operation, operations):
    """A model state is a dict: object -> (operation ids, how many of them are flushed)."""
    kind = operations[operation][0]
    new = dict(state)
    if kind == "sync-all":
        for key, (ops, _) in state.items():
            new[key] = (ops, len(ops))
    elif kind == "sync":
        ops, _ = state.get(obj, ((), 0))
        new[obj] = (ops, len(ops))
    else:
        ops, synced = state.get(obj, ((), 0))
        new[obj] = (ops + (operation,), synced)
    return new


def state_key(state):
    return tuple(sorted(state.items()))


def pieces_of(offset, data):
    """Ways a write can be torn: each a list of byte ranges of `data` that persisted."""
    length = len(data)
    if length <= 1 or (offset % SECTOR == 0 and length <= SECTOR):
        return []
    splits = [[0, length // 2, length], [0, length // 3, 2 * length // 3, length]]
    boundaries = [0] + [cut - offset for cut in range((offset // BLOCK + 1) * BLOCK, offset + length, BLOCK)] + [length]
    if len(boundaries) > 2:
        splits.append(boundaries)
    variants = set()
    for cuts in splits:
        ranges = [(cuts[index], cuts[index + 1]) for index in range(len(cuts) - 1) if cuts[index] < cuts[index + 1]]
        for size in range(1, len(ranges)):
            for chosen in itertools.combinations(ranges, size):
                variants.add(tuple(chosen))
    return sorted(variants)


class Explorer:
    def __init__(self, resolver):
        self.resolver = resolver
        self.operations = resolver.operations
        self.contents = {}        # bytes -> content id
        self.content_bytes = []
        self.content_cache = {}
        self.file_options_cache = {}
        self.entries_cache = {}
        self.state_ids = {}       # file state -> id
        self.states = []
        self.crash_cache = {}

    def content_id(self, data):
        if data not in self.contents:
            self.contents[data] = len(self.content_bytes)
            self.content_bytes.append(data)
        return self.contents[data]

    def file_content(self, obj, ops, length, split):
        key = (obj, ops[:length + (1 if split else 0)], split)
        if key in self.content_cache:
            return self.content_cache[key]
        data = bytearray()
        for operation in self.resolver.initial.get(obj, []) + list(ops[:length + (1 if split else 0)]):
            entry = self.operations[operation]
            partial = split if (split and operation == ops[length]) else None
            if entry[0] == "truncate":
                del data[entry[1]:]
                data.extend(b"\0" * (entry[1] - len(data)))
            elif entry[0] == "extend":
                data.extend(b"\0" * (entry[1] - len(data)))
            elif entry[0] == "write":
                _, offset, written = entry
                for start, end in (partial or [(0, len(written))]):
                    if offset + start > len(data):
                        data.extend(b"\0" * (offset + start - len(data)))
                    data[offset + start: offset + end] = written[start:end]
        result = self.content_id(bytes(data))
        self.content_cache[key] = result
        return result

    def file_options(self, obj, ops, synced):
        key = (obj, ops, synced)
        if key not in self.file_options_cache:
            options = set()
            for length in range(synced, len(ops) + 1):
                options.add(self.file_content(obj, ops, length, None))
                if length < len(ops) and self.operations[ops[length]][0] == "write":
                    _, offset, written = self.operations[ops[length]]
                    for split in pieces_of(offset, written):
                        options.add(self.file_content(obj, ops, length, split))
            self.file_options_cache[key] = sorted(options)
        return self.file_options_cache[key]

    def entries(self, obj, ops):
        key = (obj, ops)
        if key not in self.entries_cache:
            names = {}
            for operation in self.resolver.initial.get(obj, []) + list(ops):
                entry = self.operations[operation]
                if entry[0] == "link":
                    names[entry[1]] = entry[2]
                elif entry[0] == "rename":
                    if entry[1] in names:
                        names[entry[2]] = names.pop(entry[1])
                elif entry[0] == "unlink":
                    names.pop(entry[1], None)
            self.entries_cache[key] = sorted(names.items())
        return self.entries_cache[key]

    def tree_variants(self, state, obj, path):
        ops, synced = state.get(obj, ((), 0))
        variants = set()
        for length in range(synced, len(ops) + 1):
            per_entry = []
            for name, child in self.entries(obj, ops[:length]):
                child_path = path + name
                if self.resolver.kinds[child] == "dir":
                    per_entry.append([((child_path, -1),) + sub
                                      for sub in self.tree_variants(state, child, child_path + "/")])
                elif (obj, name) in self.resolver.scratch_names:
                    child_ops, _ = state.get(child, ((), 0))
                    # A temporary file: materialized, its bytes not told apart (-2 - content).
                    per_entry.append([((child_path, -2 - self.file_content(child, child_ops, len(child_ops), None)),)])
                else:
                    child_ops, child_synced = state.get(child, ((), 0))
                    per_entry.append([((child_path, content),)
                                      for content in self.file_options(child, child_ops, child_synced)])
            for combination in itertools.product(*per_entry):
                variants.add(sum(combination, ()))
        return variants

    def crash_states(self, state):
        """The ids of every file state a crash in `state` can leave."""
        key = state_key(state)
        if key not in self.crash_cache:
            found = set()
            for variant in self.tree_variants(state, 0, ""):
                canonical = tuple(sorted((path, content if content > -2 else -2) for path, content in variant))
                if canonical not in self.state_ids:
                    self.state_ids[canonical] = len(self.states)
                    self.states.append(variant)
                found.add(self.state_ids[canonical])
            self.crash_cache[key] = found
        return self.crash_cache[key]


DEFAULTS = "counter=0 label= values="


def explore(resolver, setup, program, sets):
    """Every (file state, expectation) a crash can leave, and the number of schedules explored.

    An expectation is, per set, the loads accepted: what the last completed save left (after a
    removal, also the defaults: `removeSuite` is for scratch suites and flushes nothing, so a
    power loss may undo it until the set is saved again), and for a set in flight what its save
    leaves."""
    explorer = Explorer(resolver)
    operations = resolver.operations
    current = {name: (DEFAULTS,) for name in sets}   # never stored: defaults
    in_flight = {}
    found = set()
    schedules = 0

    def expectation():
        return tuple((name, current[name] + ((in_flight[name],) if in_flight[name] not in current[name] else ())
                      if name in in_flight else current[name], name in in_flight) for name in sets)

    def follow(text, upcoming):
        words = text.split(" ", 2)
        if words[0] == "@@begin":
            end = next(other[1] for other in upcoming
                       if other[0] == "mark" and other[1].startswith(f"@@end {words[1]} "))
            in_flight[words[1]] = end.split(" ", 2)[2]
        elif words[0] == "@@end":
            current[words[1]] = (words[2],)
            in_flight.pop(words[1], None)
        elif words[0] == "@@begin-remove":
            for name in sets:
                in_flight[name] = DEFAULTS
        elif words[0] == "@@end-remove":
            for name in sets:
                current[name] = current[name] + ((DEFAULTS,) if DEFAULTS not in current[name] else ())
                in_flight.pop(name, None)

    for index, (_, text) in enumerate(setup):
        follow(text, setup[index:])

    def crash(states):
        accepted = expectation()
        for state in states:
            for identifier in explorer.crash_states(state):
                found.add((identifier, accepted))

    def deduplicated(states):
        return list({state_key(state): state for state in states}.values())

    states = [{}]
    crash(states)
    upcoming = list(program)
    for index, step in enumerate(upcoming):
        if step[0] == "mark":
            follow(step[1], upcoming[index:])
            crash(states)
        elif step[0] == "op":
            states = deduplicated([apply_step(state, step[1], step[2], operations) for state in states])
            crash(states)
        else:
            domain, copy = step[1], step[2]
            schedules += math.comb(len(domain) + len(copy), len(copy))
            grid = {(0, 0): states}
            for total in range(1, len(domain) + len(copy) + 1):
                for i in range(max(0, total - len(copy)), min(len(domain), total) + 1):
                    j = total - i
                    reached = []
                    if i > 0:
                        reached += [apply_step(state, *domain[i - 1], operations) for state in grid[(i - 1, j)]]
                    if j > 0:
                        reached += [apply_step(state, *copy[j - 1], operations) for state in grid[(i, j - 1)]]
                    grid[(i, j)] = deduplicated(reached)
                    crash(grid[(i, j)])
            states = grid[(len(domain), len(copy))]
    return explorer, found, schedules

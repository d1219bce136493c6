#!/usr/bin/env python3
"""Power-loss crash states of real saves (issue 22), for scripts/power-loss-test.sh.

Runs each scenario's host processes under `strace -f`, in a scratch HOME of its own, then replays
the recorded file-system calls against a model of what a power loss can leave on disk, and loads
every distinct state in a fresh host process.

The model is ALICE's ext4 with data=ordered (Pillai et al., "All File Systems Are Not Created
Equal", OSDI 2014), taken strictly:
- a completed fsync/fdatasync of a file makes its contents as written so far persist;
- the writes and truncations to a file after that persist as any prefix of them, the first one
  left out possibly in part (its first half), independently of every other file;
- creating, renaming, unlinking a file and making a directory change a directory: those changes
  persist, in their order, once the directory is fsynced; before that, as any prefix of them,
  independently of other directories and of the files' contents (so a rename may persist before
  the data written before it, unless that data was flushed first);
- a directory whose own entry did not persist is not there, nor anything under it.

A crash can come after any recorded call. The host announces each save with `@@begin <set>` and
`@@end <set> <fields>` on its standard output (recorded with the rest), which tells the set in
flight at each crash point: it must load as it was before that save or after it, and every other
set as its last completed save left it. A set that loads as neither is lost; one holding part of
each is mixed. Distinct states are counted per scenario, by the bytes of the files the library
reads (the lock file and temporary files are left out) and the save in flight.

Usage: power-loss-states.py HOST WORK_DIRECTORY STRACE
Prints `crash states: N, lost: L, mixed: M` (details of each loss on standard error).
"""

import hashlib
import itertools
import os
import re
import shutil
import subprocess
import sys

SUITE = "PowerLoss"

# Each scenario: a list of host processes run one after another; a process given as
# ("wait-for", steps, other processes) runs until its `wait` step, the others run, then it goes on.
SCENARIOS = {
    # The first save of a set into a new suite (the domain file and the directories are created),
    # then several saves in a row by one process.
    "saves in a row": [["A:triple:1", "A:triple:2", "A:triple:3", "A:triple:4"]],
    # Several sets in one suite, saved in turns by one process, then by another; set C's first
    # save comes into a domain that already holds A and B.
    "several sets": [
        ["A:triple:1", "B:triple:1"],
        ["A:triple:2", "C:triple:1", "B:triple:2", "A:triple:3", "C:triple:2"],
    ],
    # A merge: the first process loads A, another writer stores a new label meanwhile, and the
    # first one's save of counter and values merges it.
    "merge with another writer": [
        ["A:triple:1"],
        ("wait-for", ["A:load", "wait", "A:one:counter:5", "A:one:values:5", "A:sync"],
         [["A:one:label:7", "A:sync"]]),
    ],
}

TRACED_CALLS = ("open,openat,creat,write,pwrite64,ftruncate,truncate,fsync,fdatasync,"
                "rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir")


def sets_of(scenario):
    names = []
    for process in scenario:
        steps = process if isinstance(process, list) else process[1] + sum(process[2], [])
        for step in steps:
            name = step.split(":")[0]
            if name != "wait" and name not in names:
                names.append(name)
    return names


# MARK: Recording

def run_scenario(host, strace, home, scenario):
    """Runs the scenario's processes under strace; returns the trace files in the order written."""
    environment = dict(os.environ, HOME=home)
    environment.pop("XDG_CONFIG_HOME", None)
    traces = []

    def start(steps):
        trace = os.path.join(os.path.dirname(home), f"trace.{len(traces)}")
        traces.append(trace)
        command = [strace, "-f", "-ttt", "-y", "-xx", "-s", "10000000", "-e", "trace=" + TRACED_CALLS,
                   "-o", trace, host, "steps", SUITE] + steps
        return subprocess.Popen(command, env=environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def finish(process):
        out, err = process.communicate()
        if process.returncode != 0:
            sys.exit(f"power-loss: a host process failed: {err.strip()}")

    for process in scenario:
        if isinstance(process, list):
            finish(start(process))
            continue
        _, steps, others = process
        waiting = start(steps)
        while True:
            line = waiting.stdout.readline()
            if not line:
                sys.exit("power-loss: the waiting host ended before its wait step")
            if line.strip() == "@@waiting":
                break
        for other in others:
            finish(start(other))
        waiting.stdin.write("go\n")
        waiting.stdin.flush()
        finish(waiting)
    return traces


LINE = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(.*)$")
HEX = re.compile(r"((?:\\x[0-9a-f]{2})+)")


def decode(text):
    """The bytes of a string strace printed with -xx."""
    return bytes.fromhex(text.replace("\\x", ""))


def read_events(traces):
    """(name, arguments text, result text) of every successful or failed call, in the order of
    strace's timestamps (a thread's calls stay in program order; calls of two threads that overlap
    in time were concurrent, and either order is one that could have happened)."""
    events = []
    for order, trace in enumerate(traces):
        pending = {}
        with open(trace, encoding="latin-1") as file:
            for raw in file:
                match = LINE.match(raw.rstrip("\n"))
                if not match:
                    continue
                pid, time, text = match.group(1), float(match.group(2)), match.group(3)
                if text.endswith("<unfinished ...>"):
                    pending[pid] = text[: -len("<unfinished ...>")].rstrip()
                    continue
                resumed = re.match(r"^<\.\.\. \w+ resumed>(.*)$", text)
                if resumed:
                    text = pending.pop(pid, "") + resumed.group(1)
                call = re.match(r"^(\w+)\((.*)\)\s+=\s+(.*)$", text)
                if call:
                    events.append((time, order, len(events), call.group(1), call.group(2), call.group(3)))
    events.sort()
    return [(name, arguments, result) for _, _, _, name, arguments, result in events]


def strings_in(text):
    """Every quoted string of an argument list, decoded."""
    return [decode(found) for found in re.findall(r'"((?:\\x[0-9a-f]{2})*)"', text)]


def descriptor_path(text):
    """The path strace -y printed after a descriptor: `3<\\x2f...>`."""
    found = re.search(r"^\d+<((?:\\x[0-9a-f]{2})*)>", text)
    return decode(found.group(1)).decode("utf-8", "replace") if found else None


# MARK: The model

class Model:
    """What was issued so far, and enough to rebuild any crash state at any call."""

    def __init__(self, home):
        self.home = home
        self.names = {}          # path -> inode, as the running processes see them
        self.directories = {home}
        self.inode_operations = {}   # inode -> [("truncate", size) | ("write", offset, bytes)]
        self.inode_synced = {}
        self.directory_operations = {home: []}   # directory -> [("link", name, inode) | ...]
        self.directory_synced = {home: 0}
        self.positions = {}
        self.next_inode = 0
        self.marks = []   # (crash point, marker line)
        self.points = []  # one snapshot of lengths per crash point
        self.content_cache = {}

    def under_home(self, path):
        return path is not None and (path == self.home or path.startswith(self.home + "/"))

    def directory_change(self, path, operation):
        parent = os.path.dirname(path)
        self.directory_operations.setdefault(parent, [])
        self.directory_synced.setdefault(parent, 0)
        self.directory_operations[parent].append(operation)

    def snapshot(self):
        self.points.append((
            {inode: (len(ops), self.inode_synced[inode]) for inode, ops in self.inode_operations.items()},
            {path: (len(ops), self.directory_synced[path]) for path, ops in self.directory_operations.items()},
        ))

    def apply(self, name, arguments, result):
        if result.startswith("-1"):
            return
        if name in ("write", "pwrite64"):
            path = descriptor_path(arguments)
            data = strings_in(arguments)[0]
            if not self.under_home(path):
                if data.startswith(b"@@"):
                    for line in data.decode().splitlines():
                        self.marks.append((len(self.points), line))
                return
            written = int(result.split()[0])
            inode = self.names[path]
            if name == "pwrite64":
                offset = int(arguments.rsplit(",", 1)[1])
            else:
                offset = self.positions.get(path, 0)
                self.positions[path] = offset + written
            self.inode_operations[inode].append(("write", offset, data[:written]))
        elif name in ("open", "openat", "creat"):
            path = strings_in(arguments)[0].decode()
            if not self.under_home(path) or path in self.directories:
                return
            if path not in self.names:
                if "O_CREAT" not in arguments and name != "creat":
                    return
                self.names[path] = self.next_inode
                self.inode_operations[self.next_inode] = []
                self.inode_synced[self.next_inode] = 0
                self.next_inode += 1
                self.directory_change(path, ("link", os.path.basename(path), self.names[path]))
            if "O_TRUNC" in arguments or name == "creat":
                self.inode_operations[self.names[path]].append(("truncate", 0))
            self.positions[path] = 0
        elif name in ("ftruncate", "truncate"):
            path = descriptor_path(arguments) if name == "ftruncate" else strings_in(arguments)[0].decode()
            if self.under_home(path):
                self.inode_operations[self.names[path]].append(("truncate", int(arguments.rsplit(",", 1)[1])))
        elif name in ("fsync", "fdatasync"):
            path = descriptor_path(arguments)
            if not self.under_home(path):
                return
            if path in self.directories:
                self.directory_operations.setdefault(path, [])
                self.directory_synced[path] = len(self.directory_operations[path])
            else:
                inode = self.names[path]
                self.inode_synced[inode] = len(self.inode_operations[inode])
        elif name in ("rename", "renameat", "renameat2"):
            source, target = [found.decode() for found in strings_in(arguments)[:2]]
            if not self.under_home(source):
                return
            if os.path.dirname(source) != os.path.dirname(target):
                sys.exit(f"power-loss: a rename across directories is not modelled: {source} -> {target}")
            inode = self.names.pop(source)
            self.names[target] = inode
            self.directory_change(target, ("rename", os.path.basename(source), os.path.basename(target)))
        elif name in ("unlink", "unlinkat", "rmdir"):
            path = strings_in(arguments)[0].decode()
            if self.under_home(path):
                self.names.pop(path, None)
                self.directories.discard(path)
                self.directory_change(path, ("unlink", os.path.basename(path)))
        elif name in ("mkdir", "mkdirat"):
            path = strings_in(arguments)[0].decode()
            if self.under_home(path):
                self.directories.add(path)
                self.directory_operations.setdefault(path, [])
                self.directory_synced.setdefault(path, 0)
                self.directory_change(path, ("mkdir", os.path.basename(path)))

    def choices(self, point):
        """Every persisted variant of every file and directory at one crash point."""
        inodes, directories = self.points[point]
        inode_choices = []
        for inode, (count, synced) in inodes.items():
            options = []
            for length in range(synced, count + 1):
                options.append((length, False))
                if length < count and self.inode_operations[inode][length][0] == "write":
                    if len(self.inode_operations[inode][length][2]) > 1:
                        options.append((length, True))
            inode_choices.append([(inode, option) for option in options])
        directory_choices = [[(path, length) for length in range(synced, count + 1)]
                             for path, (count, synced) in directories.items()]
        return inode_choices, directory_choices

    def contents(self, inode, length, partial):
        key = (inode, length, partial)
        if key not in self.content_cache:
            self.content_cache[key] = self.build_contents(inode, length, partial)
        return self.content_cache[key]

    def build_contents(self, inode, length, partial):
        data = bytearray()
        operations = self.inode_operations[inode]
        for index in range(length + (1 if partial else 0)):
            operation = operations[index]
            if operation[0] == "truncate":
                del data[operation[1]:]
                data.extend(b"\0" * (operation[1] - len(data)))
            else:
                _, offset, written = operation
                if partial and index == length:
                    written = written[: len(written) // 2]
                data.extend(b"\0" * (offset - len(data)))
                data[offset: offset + len(written)] = written
        return bytes(data)

    def state(self, inode_choice, directory_choice):
        """{relative path: bytes} of the files the library reads, in one crash state."""
        entries = {}
        lengths = dict(directory_choice)

        def walk(directory, relative):
            names = {}
            for operation in self.directory_operations.get(directory, [])[: lengths.get(directory, 0)]:
                if operation[0] == "link":
                    names[operation[1]] = ("file", operation[2])
                elif operation[0] == "mkdir":
                    names[operation[1]] = ("directory", None)
                elif operation[0] == "rename":
                    if operation[1] in names:
                        names[operation[2]] = names.pop(operation[1])
                else:
                    names.pop(operation[1], None)
            for name, (kind, inode) in names.items():
                if kind == "directory":
                    walk(os.path.join(directory, name), relative + name + "/")
                elif not name.endswith(".tmp") and name != "domain.lock":
                    length, partial = inode_choice[inode]
                    entries[relative + name] = self.contents(inode, length, partial)

        walk(self.home, "")
        return entries


def expectations(model, sets):
    """Per crash point: {set: (accepted field lines, whether a save of it is in flight)}.

    A marker recorded at point m was written before the calls from m on: crash points from m on
    come after it."""
    current = {name: "counter=0 label= values=" for name in sets}   # never stored: defaults
    in_flight = {}
    marks = list(model.marks)
    result = []
    for point in range(len(model.points)):
        while marks and marks[0][0] <= point:
            words = marks.pop(0)[1].split(" ", 2)
            if words[0] == "@@begin":
                end = next(text for _, text in marks if text.startswith(f"@@end {words[1]} "))
                in_flight[words[1]] = end.split(" ", 2)[2]
            elif words[0] == "@@end":
                current[words[1]] = words[2]
                in_flight.pop(words[1], None)
        result.append({name: ((current[name], in_flight[name]) if name in in_flight else (current[name],),
                              name in in_flight) for name in sets})
    return result


# MARK: Loading and classifying

def fields(line):
    found = re.match(r"counter=(\S*) label=(\S*) values=(\S*)", line)
    return found.groups() if found else None


def classify(loaded, accepted):
    if loaded in accepted:
        return "ok"
    if len(accepted) == 2:
        mine, before, after = fields(loaded), fields(accepted[0]), fields(accepted[1])
        if mine and all(value in (old, new) for value, old, new in zip(mine, before, after)):
            return "mixed"
    return "lost"


def main():
    host, work, strace = sys.argv[1:4]
    total = lost = mixed = 0
    for number, (title, scenario) in enumerate(SCENARIOS.items()):
        home = os.path.join(work, f"scenario{number}", "home")
        os.makedirs(home)
        home = os.path.realpath(home)
        sets = sets_of(scenario)
        model = Model(home)
        for name, arguments, result in read_events(run_scenario(host, strace, home, scenario)):
            model.snapshot()
            model.apply(name, arguments, result)
        model.snapshot()
        expected = expectations(model, sets)

        states = {}   # (state digest, expectations) -> state
        for point in range(len(model.points)):
            inode_choices, directory_choices = model.choices(point)
            for inode_choice in itertools.product(*inode_choices):
                chosen_inodes = dict(inode_choice)
                for directory_choice in itertools.product(*directory_choices):
                    state = model.state(chosen_inodes, directory_choice)
                    digest = hashlib.sha256(repr(sorted(state.items())).encode()).hexdigest()
                    key = (digest, repr(sorted(expected[point].items())))
                    states.setdefault(key, (state, expected[point], point))

        loads = {}
        for (digest, _), (state, accepted, point) in states.items():
            if digest not in loads:
                loads[digest] = load(host, work, state, sets)
            total += 1
            outcomes = [classify(loads[digest][name], accepted[name][0]) for name in sets]
            if "lost" in outcomes:
                lost += 1
            elif "mixed" in outcomes:
                mixed += 1
            if "lost" in outcomes or "mixed" in outcomes:
                report = "; ".join(
                    f"{name}{' (in flight)' if accepted[name][1] else ''} loaded {loads[digest][name]!r}, "
                    f"accepted {' or '.join(map(repr, accepted[name][0]))}" for name in sets
                    if classify(loads[digest][name], accepted[name][0]) != "ok")
                files = ", ".join(f"{path} ({len(data)} B)" for path, data in sorted(state.items())) or "no files"
                print(f"{title}, call {point}: {report} [{files}]", file=sys.stderr)
        print(f"{title}: {len(model.points) - 1} calls recorded, {len(states)} crash states, "
              f"{len(loads)} distinct file states loaded", file=sys.stderr)
    print(f"crash states: {total}, lost: {lost}, mixed: {mixed}")
    return 1 if lost or mixed or total < 50 else 0


def load(host, work, state, sets):
    """Materializes a state in a scratch HOME and loads every set in a fresh process."""
    home = os.path.join(work, "load")
    shutil.rmtree(home, ignore_errors=True)
    os.makedirs(home)
    for path, data in state.items():
        target = os.path.join(home, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as file:
            file.write(data)
    environment = dict(os.environ, HOME=home)
    environment.pop("XDG_CONFIG_HOME", None)
    finished = subprocess.run([host, "fields-of", SUITE] + sets, env=environment, capture_output=True, text=True)
    loaded = {}
    for line in finished.stdout.splitlines():
        name, rest = line.split(" ", 1)
        loaded[name] = rest.rsplit(" error=", 1)[0]
    return {name: loaded.get(name, f"no result (exit {finished.returncode}: {finished.stderr.strip()[:200]})")
            for name in sets}


if __name__ == "__main__":
    sys.exit(main())

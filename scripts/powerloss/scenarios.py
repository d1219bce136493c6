"""The scenarios: the host processes each runs, and the app's own keys beside the sets."""

import os
import plistlib

from . import KEY_PREFIX, SUITE


class Scenario:
    def __init__(self, processes, setup=None, prepare=None, known_failure=None, others=True):
        # processes: host processes run one after another; a process given as
        # ("wait-for", steps, other processes) runs until its `wait` step, the others run, then it
        # goes on. setup: steps run untraced before (their files are on disk, flushed, when the
        # recording starts); prepare(home): changes those files.
        self.processes = processes
        self.setup = setup
        self.prepare = prepare
        # known_failure: why the scenario fails today; such a scenario runs only when named.
        self.known_failure = known_failure
        # others: the setup first stores OTHER_KEYS and a backup of set A's key in the domain (the
        # app's own keys), and every crash state's domain file must hold each of them as stored.
        self.others = others


def make_plain_archive(home):
    """Rewrites each recovery copy as an earlier version wrote it: the archive alone."""
    store = os.path.join(home, ".config", "AppSettings", SUITE)
    for name in os.listdir(store):
        path = os.path.join(store, name)
        with open(path, "rb") as file:
            data = file.read()
        if data.startswith(b"ASCopy\0\x01"):
            length = int.from_bytes(data[16:24], "little")
            with open(path, "wb") as file:
                file.write(data[32:32 + length])


SCENARIOS = {
    # The first save of a set into a new suite (the domain file and the directories are created),
    # then several saves in a row by one process (slots written in place).
    "saves in a row": Scenario([["A:triple:1", "A:triple:2", "A:triple:3", "A:triple:4"]], others=False),
    # The same into a domain that already holds the app's own keys and a backup: each save writes
    # the whole domain file anew (never in place), and no crash state may lose one of them.
    "saves in a row beside other keys": Scenario([["A:triple:1", "A:triple:2", "A:triple:3"]]),
    # Several sets in one suite, saved in turns by one process, then by another; set C's first
    # save comes into a domain that already holds A and B.
    "several sets": Scenario([
        ["A:triple:1", "B:triple:1"],
        ["A:triple:2", "C:triple:1", "B:triple:2", "A:triple:3", "C:triple:2"],
    ]),
    # A merge: the first process loads A, another writer stores a new label meanwhile, and the
    # first one's save of counter and values merges it.
    "merge with another writer": Scenario([
        ["A:triple:1"],
        ("wait-for", ["A:load", "wait", "A:one:counter:5", "A:one:values:5", "A:sync"],
         [["A:one:label:7", "A:sync"]]),
    ]),
    # Sets larger than a block: a set of about 3.4 KB in a 4 KiB slot, then one of about 6.4 KB
    # that outgrows its slots (a new file, renamed into place), then more in place, each slot
    # write spanning two blocks.
    "larger than a block, outgrowing the slots": Scenario([
        ["A:triple:1", "A:large:2:3000", "A:large:3:6000", "A:large:4:6000", "A:large:5:6000"],
    ]),
    # The same sizes from a copy whose two slots were both written (by an untraced process): a save
    # overwrites the older slot, never the newest.
    "larger than a block, both slots written before": Scenario(
        [["A:large:4:6000", "A:large:5:6000"]],
        setup=["A:triple:1", "A:large:2:6000", "A:large:3:6000"]),
    # An earlier version's copy (the archive alone, renamed into place at every save) is replaced
    # by a two-slot file at the next save.
    "a plain archive converted": Scenario([["A:triple:2", "A:triple:3"]], setup=["A:triple:1"],
                                          prepare=make_plain_archive),
    # Two sets, the suite removed, then a set saved into the suite anew by another process.
    "a suite removed": Scenario([["A:triple:1", "B:triple:1", "remove"], ["A:triple:2"]], others=False),
    # The same, saved anew by the process that removed the suite.
    "a suite removed, saved anew by the same process": Scenario(
        [["A:triple:1", "B:triple:1", "remove", "A:triple:2"]],
        known_failure="the store directory made anew after a removal is flushed, but not the directory above it "
                      "(DomainLocation flushes the ancestors once per process): with the domain's key lost, the "
                      "save after the removal loads as the defaults", others=False),
}

# What the setup of a scenario with `others` stores besides the sets (the host's `seed` step), and
# what every crash state's domain file must still hold.
OTHER_KEY_COUNT = 5
OTHER_KEYS = {f"plain.{index}": f"the app's own value {index}" for index in range(OTHER_KEY_COUNT)}
OTHER_KEYS[KEY_PREFIX + "A.unreadable-1700000000000"] = b"bytes a load could not read"


def missing_other_keys(data):
    """How many of OTHER_KEYS the domain file's bytes do not hold as stored (all of them when there
    is no file or it is not a property-list dictionary)."""
    try:
        domain = plistlib.loads(data) if data is not None else None
    except Exception:
        domain = None
    if not isinstance(domain, dict):
        return len(OTHER_KEYS)
    return sum(1 for key, value in OTHER_KEYS.items() if domain.get(key) != value)


def sets_of(scenario):
    names = []
    for process in scenario.processes:
        steps = process if isinstance(process, list) else process[1] + sum(process[2], [])
        for step in steps:
            name = step.split(":")[0]
            if name not in ("wait", "remove") and name not in names:
                names.append(name)
    return names

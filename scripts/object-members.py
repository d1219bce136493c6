#!/usr/bin/env python3
"""Counts the members of AppSettingsObject, of any access, from the module's symbol graph.

    python3 scripts/object-members.py [--list] [--at-most N] [--face-locks] [--state-owners] [--platform-free] [--feature-free]

Builds the package (debug), extracts the symbol graph of `AppSettings` with private symbols, and
counts the symbols that are members of the class itself (its extensions included; members of
nested types are not the class's). With `--at-most N` it fails when there are more than N: the
base class is a face over parts (issue 38), and this keeps it one.

With `--face-locks` it also reads the sources: the class's own code (its body and its
extensions) takes the object's lock (`_state.withLock`) only in the members of FACE_LOCKS, the
read and write of one setting and the reset of a fresh object's slots; every other use of the
state is a part's (`SettingsLedger`, `Announcer`, `SettingsOverrides`, `CloudCoordinator`, ...),
which locks for itself. It first shows, on a made-up source, that it refuses a lock elsewhere.

With `--state-owners` each field of `ObjectState` is read and written only by the code of the
part that owns it (OWNERS): another part asks the owner (`object.ledger.storedBase`), and what
must be taken in one moment with another part's fields is taken through the owner's static
accessor inside the same lock (`CloudCoordinator.link(in:)` in a save's snapshot). The read and
write of one setting may record a change (`_writeSetting`), and `ObjectState`'s own methods
(`takeLoadState(of:)`: what a load into a scratch copy found, taken whole in one moment) may touch
every field: they are the one place where a moment spans parts. A field is seen where the state is
named `$0`, `state`, `loadState` or `scratchState`, the names the sources give it. It first shows,
on a made-up source, that it refuses a field touched by another part.

With `--platform-free` no file of `Sources/AppSettings/Object/` (the class and its parts) branches
on the platform (`#if os(...)`, `canImport(...)`, `targetEnvironment(...)`, `arch(...)`,
`APPLE_STAND_INS`): what differs between Linux and Apple platforms is behind the store and the
other seams of `Internal/`. `#if DEBUG` and the fault-injection flag are not platforms. It first
shows, on a made-up source, that it refuses a platform branch and lets `#if DEBUG` pass.

With `--feature-free` the files of a save and a load (SAVE_AND_LOAD) name neither iCloud nor the
Settings app (issue 46): those take part as replicas (`SettingsReplica`), which the ledger lists
once (`AppSettingsObject+Replicas.swift`). It first shows, on a made-up source, that it refuses a
line naming the cloud.
"""
import argparse
import collections
import glob
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The members of the class whose own code may lock the object's state: the hot path of one
# setting stays on the class (a part made per read would cost every read).
FACE_LOCKS = {"_readSetting", "_writeSetting", "resetToDeveloperDefaults"}

DECLARATION = re.compile(
    r"^(?:(?:public|package|internal|fileprivate|private|open|final|@\w+(?:\([^)]*\))?)\s+)*"
    r"(?:extension|class|struct|enum|actor|protocol)\s+(\w+)")
MEMBER = re.compile(r"\b(?:func|var|init|subscript)\b\s*(\w*)")


# Who owns each field of ObjectState (Object/AppSettingsObject.swift).
OWNERS = {
    "changes": "SettingsLedger", "stored": "SettingsLedger", "lastLoadError": "SettingsLedger",
    "reloadsWhenStoredSettingsChange": "SettingsLedger",
    "parent": "Announcer", "announcements": "Announcer",
    "cloud": "CloudCoordinator", "overrides": "SettingsOverrides", "settingsApp": "SettingsAppBridge",
}
# (scope, member, field) allowed outside the owner: the hot path of one setting.
OWNER_EXCEPTIONS = {("AppSettingsObject", "_writeSetting", "changes")}
FIELD = re.compile(r"(?:\$0|\bstate|\bloadState|\bscratchState)\.(" + "|".join(OWNERS) + r")\b")


def scoped_lines(text: str):
    """Each code line of `text` with its number, its top-level type and the member it is in."""
    scope = None
    member = None
    for number, line in enumerate(text.splitlines(), 1):
        declaration = DECLARATION.match(line)
        if declaration:
            scope = declaration.group(1)
            member = None
            continue
        if line.lstrip().startswith("//"):
            continue
        found = MEMBER.search(line)
        if found and line.startswith("    ") and not line.startswith("        "):
            member = found.group(1) or found.group(0).split()[0]
        yield number, line, scope, member


def source_sites(finder, *folder) -> tuple:
    """What `finder` reports in every Swift file under `folder` (below the package), and how
    many files it read."""
    paths = sorted(glob.glob(os.path.join(ROOT, *folder, "**", "*.swift"), recursive=True))
    sites = []
    for path in paths:
        with open(path) as file:
            sites += finder(file.read(), os.path.relpath(path, ROOT))
    return sites, len(paths)


def refuses_made_up(check: str, finder, made_up: str, expected: str, passed: str) -> bool:
    """Whether `finder` refuses exactly one line of `made_up`, the one naming `expected`."""
    refused = finder(made_up, "made-up.swift")
    if len(refused) != 1 or expected not in refused[0]:
        print(f"{check} self-test: expected one refusal, naming {expected}; got {refused}")
        return False
    print(f"{check} self-test: {passed}")
    return True


def verdict(sites: list, problem: str, passed: str) -> int:
    """Prints the sites under `problem` and fails, or prints `passed`."""
    if sites:
        print(problem)
        print("\n".join(sites))
        return 1
    print(passed)
    return 0


def foreign_field_sites(text: str, file_name: str) -> list:
    """The lines of `text` where a field of ObjectState is touched outside its owner's code."""
    sites = []
    for number, line, scope, member in scoped_lines(text):
        for field in FIELD.findall(line):
            if OWNERS[field] != scope and scope != "ObjectState" and (scope, member, field) not in OWNER_EXCEPTIONS:
                sites.append(f"{file_name}:{number}: {field} (owned by {OWNERS[field]}) in {scope}.{member}: {line.strip()}")
    return sites


def check_state_owners() -> int:
    made_up = (
        "extension CloudCoordinator {\n"
        "    func isSettled() -> Bool {\n"
        "        _state.withLock { $0.stored.cloudRecord } != nil\n"
        "    }\n"
        "    static func link(in state: ObjectState) -> CloudLink { state.cloud }\n"
        "}\n"
        "extension AppSettingsObject {\n"
        "    final func _writeSetting<Value>(_ slot: SettingSlot<Value>, _ newValue: Value) {\n"
        "        _state.withLock { state in state.changes.recordChange(of: slot.index) }\n"
        "    }\n"
        "}\n"
    )
    if not refuses_made_up(
            "state-owners", foreign_field_sites, made_up,
            "stored (owned by SettingsLedger) in CloudCoordinator.isSettled",
            "the coordinator reading the ledger's field refused; its own field and the write path not"):
        return 1
    sites, _ = source_sites(foreign_field_sites, "Sources", "AppSettings")
    owners = collections.defaultdict(list)
    for field, owner in OWNERS.items():
        owners[owner].append(field)
    return verdict(
        sites, "fields of ObjectState touched outside the part that owns them; ask the owner instead:",
        "each field of ObjectState is touched only by its owner: "
        + "; ".join(f"{owner} {', '.join(fields)}" for owner, fields in owners.items()))


def face_lock_sites(text: str, file_name: str) -> tuple:
    """The lines of `text` where the class's own code locks the state outside FACE_LOCKS, and
    how many times it does inside them."""
    sites = []
    allowed = 0
    for number, line, scope, member in scoped_lines(text):
        if scope == "AppSettingsObject" and "_state.withLock" in line:
            if member in FACE_LOCKS:
                allowed += 1
            else:
                sites.append(f"{file_name}:{number}: in {member}: {line.strip()}")
    return sites, allowed


def check_face_locks() -> int:
    made_up = (
        "extension AppSettingsObject {\n"
        "    public final var hasUnsavedChanges: Bool {\n"
        "        _state.withLock { $0.changes.hasUnsavedChanges }\n"
        "    }\n"
        "    final func _readSetting<Value>(_ slot: SettingSlot<Value>) -> Value {\n"
        "        _state.withLock { _ in slot.visibleValue }\n"
        "    }\n"
        "}\n"
        "extension SettingsLedger {\n"
        "    var lastLoadError: AppSettingsError? { _state.withLock { $0.lastLoadError } }\n"
        "}\n"
    )
    refused, _ = face_lock_sites(made_up, "made-up.swift")
    if len(refused) != 1 or "hasUnsavedChanges" not in refused[0]:
        print(f"face-locks self-test: expected one refusal, in hasUnsavedChanges; got {refused}")
        return 1
    print("face-locks self-test: a lock in the class's hasUnsavedChanges refused, the read's and the part's not")
    allowed = []

    def counting(text: str, file_name: str) -> list:
        refused, count = face_lock_sites(text, file_name)
        allowed.append(count)
        return refused

    sites, _ = source_sites(counting, "Sources", "AppSettings")
    return verdict(
        sites, "the class's own code locks the object's state; move these into the part that owns the state:",
        f"AppSettingsObject's own code locks its state only in {', '.join(sorted(FACE_LOCKS))} ({sum(allowed)} sites)")


PLATFORM_BRANCH = re.compile(
    r"^\s*#(?:if|elseif)\b.*(?:\bos\(|\bcanImport\(|\btargetEnvironment\(|\barch\(|\bAPPLE_STAND_INS)")


def platform_branch_sites(text: str, file_name: str) -> list:
    """The lines of `text` that branch on the platform."""
    return [f"{file_name}:{number}: {line.strip()}"
            for number, line in enumerate(text.splitlines(), 1) if PLATFORM_BRANCH.match(line)]


def check_platform_free() -> int:
    made_up = (
        "#if DEBUG\n    let debug = true\n#endif\n"
        "    private var domain: String {\n"
        "        #if os(Linux) && !APPLE_STAND_INS\n            store.domainName\n        #else\n            \"\"\n"
        "        #endif\n    }\n"
    )
    if not refuses_made_up(
            "platform-free", platform_branch_sites, made_up, "os(Linux)",
            "an os(Linux) branch refused, #if DEBUG not"):
        return 1
    sites, count = source_sites(platform_branch_sites, "Sources", "AppSettings", "Object")
    return verdict(
        sites, "the object branches on the platform; put what differs behind a seam of Internal/:",
        f"Object/ branches on no platform ({count} files)")


SAVE_AND_LOAD = [
    "Sources/AppSettings/Object/AppSettingsObject+Saving.swift",
    "Sources/AppSettings/Object/AppSettingsObject+Loading.swift",
    "Sources/AppSettings/Object/AppSettingsObject+Reconciling.swift",
    "Sources/AppSettings/Object/Parts/Reconciliation.swift",
    "Sources/AppSettings/Internal/Store/SettingsStore.swift",
]
FEATURE_NAME = re.compile(r"cloud|settings ?app|ubiquit|shown", re.IGNORECASE)


def feature_sites(text: str, file_name: str) -> list:
    """The lines of `text` that name iCloud or the Settings app."""
    return [f"{file_name}:{number}: {line.strip()}"
            for number, line in enumerate(text.splitlines(), 1) if FEATURE_NAME.search(line)]


def check_feature_free() -> int:
    made_up = "    let replicas = ledger.replicas()\n    if syncs { cloud.push(snapshot) }\n"
    if not refuses_made_up("feature-free", feature_sites, made_up, "cloud.push", "a line naming the cloud refused"):
        return 1
    sites = []
    for path in SAVE_AND_LOAD:
        with open(os.path.join(ROOT, path)) as file:
            sites += feature_sites(file.read(), path)
    return verdict(
        sites, "the save or the load names a feature; make it a replica's part instead:",
        f"the save and the load name neither iCloud nor the Settings app ({len(SAVE_AND_LOAD)} files)")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--list", action="store_true", help="print every member with its access and file")
    parser.add_argument("--at-most", type=int, help="fail when the class has more members")
    parser.add_argument("--face-locks", action="store_true", help="fail when the class's own code locks its state")
    parser.add_argument("--state-owners", action="store_true", help="fail when a part touches another's state")
    parser.add_argument("--platform-free", action="store_true", help="fail when Object/ branches on the platform")
    parser.add_argument("--feature-free", action="store_true", help="fail when a save or load file names a feature")
    args = parser.parse_args()
    if args.feature_free and check_feature_free() != 0:
        return 1
    if args.platform_free and check_platform_free() != 0:
        return 1
    if args.face_locks and check_face_locks() != 0:
        return 1
    if args.state_owners and check_state_owners() != 0:
        return 1

    subprocess.run(["swift", "build", "--target", "AppSettings"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    bin_path = subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    target = f"{platform.machine()}-unknown-linux-gnu"
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            [
                "swift", "symbolgraph-extract", "-module-name", "AppSettings",
                "-I", os.path.join(bin_path, "Modules"), "-target", target,
                "-minimum-access-level", "private", "-output-dir", out,
            ],
            cwd=ROOT, check=True,
        )
        members = []
        for path in glob.glob(os.path.join(out, "*.json")):
            with open(path) as file:
                graph = json.load(file)
            symbols = {symbol["identifier"]["precise"]: symbol for symbol in graph["symbols"]}
            for relation in graph["relationships"]:
                if relation["kind"] != "memberOf":
                    continue
                symbol = symbols.get(relation["source"])
                if symbol is None or symbol["pathComponents"][:1] != ["AppSettingsObject"]:
                    continue
                if len(symbol["pathComponents"]) != 2:
                    continue
                file_name = os.path.basename(symbol.get("location", {}).get("uri", "?"))
                members.append((symbol["accessLevel"], symbol["kind"]["identifier"], symbol["names"]["title"], file_name))
    by_access = collections.Counter(access for access, *_ in members)
    if args.list:
        for member in sorted(members, key=lambda m: (m[3], m[0], m[2])):
            print("  ".join(member))
    summary = ", ".join(f"{count} {access}" for access, count in sorted(by_access.items()))
    print(f"AppSettingsObject: {len(members)} members ({summary})")
    if args.at_most is not None and len(members) > args.at_most:
        print(f"more than {args.at_most}: move what is not the class's own surface into a part")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

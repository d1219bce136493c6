#!/usr/bin/env python3
"""Counts the members of AppSettingsObject, of any access, from the module's symbol graph.

    python3 scripts/object-members.py [--list] [--at-most N] [--platform-free] [--feature-free]

Builds the package (debug), extracts the symbol graph of `AppSettings` with private symbols, and
counts the symbols that are members of the class itself (its extensions included; members of
nested types are not the class's). With `--at-most N` it fails when there are more than N: the
base class is a face over parts (issue 38), and this keeps it one.

Which part may set which field of the object's state is not checked here: each field of
`ObjectState` is a part's type whose fields only its own file sets (access control, issue 46).

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
    parser.add_argument("--platform-free", action="store_true", help="fail when Object/ branches on the platform")
    parser.add_argument("--feature-free", action="store_true", help="fail when a save or load file names a feature")
    args = parser.parse_args()
    if args.feature_free and check_feature_free() != 0:
        return 1
    if args.platform_free and check_platform_free() != 0:
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

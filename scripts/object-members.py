#!/usr/bin/env python3
"""Counts the members of AppSettingsObject, of any access, from the module's symbol graph.

    python3 scripts/object-members.py [--list] [--at-most N]

Builds the package (debug), extracts the symbol graph of `AppSettings` with private symbols, and
counts the symbols that are members of the class itself (its extensions included; members of
nested types are not the class's). With `--at-most N` it fails when there are more than N: the
base class is a face over parts (issue 38), and this keeps it one.
"""
import argparse
import collections
import glob
import json
import os
import platform
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--list", action="store_true", help="print every member with its access and file")
    parser.add_argument("--at-most", type=int, help="fail when the class has more members")
    args = parser.parse_args()

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

#!/usr/bin/env python3
"""Fails when Sources/AppSettings/Internal/README.md names a path that does not exist.

A path is a `code span` that names a file or folder of the repository: it contains a `/` or ends
in `.swift`, and holds no space or parenthesis; `+Feature` names an extension file
(`AppSettingsObject+Feature.swift`); a name ending in `Tests` (`ConcurrencyTests`) names a test
suite, a file `ConcurrencyTests.swift` or a folder of that name under Tests/ or IntegrationTests/.
It is looked up, as written and with `.swift` added, relative to the README's folder, to
Sources/AppSettings, to Sources and to the repository (test paths such as
`Tests/AppSettingsTests/Store/StoreCompatibilityTests.swift` too); a bare file name (`Log.swift`)
anywhere under Sources, or, ending in `Tests.swift`, under the test folders. The README's own paths
stay true that way (the internals map must walk the code as it is).

Usage: scripts/check-internals-readme.py [--self-test] [README]
  --self-test  first checks a copy of the README with paths that name nothing (sources and tests): each
               must be refused.
"""
import os
import pathlib
import re
import sys
import tempfile

root = pathlib.Path(__file__).resolve().parent.parent
arguments = [argument for argument in sys.argv[1:] if argument != "--self-test"]
readme = pathlib.Path(arguments[0]) if arguments else root / "Sources/AppSettings/Internal/README.md"
swift_files = {path.name for path in (root / "Sources").rglob("*.swift")}
# The test folders' files and folders by name: suites (`ConcurrencyTests`) and test files named bare.
test_names = set()
for folder in ("Tests", "IntegrationTests"):
    for directory, folders, files in os.walk(root / folder):
        folders[:] = [name for name in folders if name != ".build"]
        test_names.update(folders + files)

def exists(name: str, bases: list) -> bool:
    if name.startswith("+"):
        # `+Saving`: an extension file of that feature (`AppSettingsObject+Saving.swift`).
        return any(file.endswith(name + ".swift") for file in swift_files)
    candidates = [name, name.rstrip("/"), name + ".swift"]
    if "/" not in name:
        if re.fullmatch(r"[A-Za-z]+Tests(\+[A-Za-z]+)?(\.swift)?", name):
            return name in test_names or name + ".swift" in test_names
        return name in swift_files
    return any((base / candidate).exists() for base in bases for candidate in candidates)

def problems(readme: pathlib.Path, text: str) -> list:
    bases = [readme.parent, root / "Sources/AppSettings", root / "Sources", root]
    missing = []
    for number, line in enumerate(text.splitlines(), 1):
        for span in re.findall(r"`([^`]+)`", line):
            if re.search(r"[\s()<>*]", span) or span.startswith(("-", "$", "#", "@", ".")) and "/" not in span:
                continue
            if span == "/" or not ("/" in span or span.endswith(".swift") or re.fullmatch(r"\+[A-Z][A-Za-z]+", span)
                                   or re.fullmatch(r"[A-Z][A-Za-z]*Tests", span)):
                continue
            if not re.fullmatch(r"[A-Za-z0-9_.+/-]+", span):
                continue
            if not exists(span, bases):
                missing.append(f"{readme.relative_to(root)}:{number}: `{span}` names no file or folder")
    return missing

text = readme.read_text()
if "--self-test" in sys.argv:
    broken = problems(readme, text + "\n`Store/NoSuchFile.swift` and `+NoSuchFeature`, tested by"
                      " `Tests/AppSettingsTests/Store/NoSuchTests.swift` and `NoSuchTests`\n")
    if len(broken) != 4:
        print(f"self-test: a README naming four missing files gave {len(broken)} problems")
        sys.exit(1)
    print("self-test: ok (four missing paths refused, two of them tests)")
missing = problems(readme, text)
for problem in missing:
    print(problem)
if missing:
    sys.exit(1)
print(f"Every path {readme.relative_to(root)} names exists.")

#!/usr/bin/env python3
"""Fails when Sources/AppSettings/Internal/README.md names a path that does not exist.

A path is a `code span` that names a file or folder of the repository: it contains a `/` or ends
in `.swift`, and holds no space or parenthesis; `+Feature` names an extension file
(`AppSettingsObject+Feature.swift`). It is looked up, as written and with `.swift`
added, relative to the README's folder, to Sources/AppSettings, to Sources and to the repository;
a bare file name (`Log.swift`) anywhere under Sources. The README's own paths stay true that way
(the internals map must walk the code as it is).

Usage: scripts/check-internals-readme.py [--self-test] [README]
  --self-test  first checks a copy of the README with a path that names nothing: it must be refused.
"""
import pathlib
import re
import sys
import tempfile

root = pathlib.Path(__file__).resolve().parent.parent
arguments = [argument for argument in sys.argv[1:] if argument != "--self-test"]
readme = pathlib.Path(arguments[0]) if arguments else root / "Sources/AppSettings/Internal/README.md"
swift_files = {path.name for path in (root / "Sources").rglob("*.swift")}

def exists(name: str, bases: list) -> bool:
    if name.startswith("+"):
        # `+Saving`: an extension file of that feature (`AppSettingsObject+Saving.swift`).
        return any(file.endswith(name + ".swift") for file in swift_files)
    candidates = [name, name.rstrip("/"), name + ".swift"]
    if "/" not in name:
        return name in swift_files
    return any((base / candidate).exists() for base in bases for candidate in candidates)

def problems(readme: pathlib.Path, text: str) -> list:
    bases = [readme.parent, root / "Sources/AppSettings", root / "Sources", root]
    missing = []
    for number, line in enumerate(text.splitlines(), 1):
        for span in re.findall(r"`([^`]+)`", line):
            if re.search(r"[\s()<>*]", span) or span.startswith(("-", "$", "#", "@", ".")) and "/" not in span:
                continue
            if span == "/" or not ("/" in span or span.endswith(".swift") or re.fullmatch(r"\+[A-Z][A-Za-z]+", span)):
                continue
            if not re.fullmatch(r"[A-Za-z0-9_.+/-]+", span):
                continue
            if not exists(span, bases):
                missing.append(f"{readme.relative_to(root)}:{number}: `{span}` names no file or folder")
    return missing

text = readme.read_text()
if "--self-test" in sys.argv:
    broken = problems(readme, text + "\n`Store/NoSuchFile.swift` and `+NoSuchFeature`\n")
    if len(broken) != 2:
        print(f"self-test: a README naming two missing files gave {len(broken)} problems")
        sys.exit(1)
    print("self-test: ok (two missing paths refused)")
missing = problems(readme, text)
for problem in missing:
    print(problem)
if missing:
    sys.exit(1)
print(f"Every path {readme.relative_to(root)} names exists.")

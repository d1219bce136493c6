#!/usr/bin/env bash
# Compiles every ```swift block of README.md, with warnings as errors, in the package
# IntegrationTests/ReadmeSnippets, as a user's app and its tests would compile them.
#
# The convention (how a block becomes code):
# - Each ```swift block becomes one file, README_<line>.swift, <line> being the line of README.md
#   that opens the block; compiler messages name README.md and its lines (#sourceLocation). The
#   files exist while the script runs (it removes them at the end).
# - Where it goes: a block that imports Testing goes to the test target MyAppTests (it imports the
#   app's module as a test does: `@testable import MyApp`); a block right after the line
#   `<!-- snippet: main-actor -->` goes to MyXcodeApp, a target configured as Xcode 26 configures a
#   new app (default actor isolation MainActor, approachable concurrency); every other block goes to
#   MyApp, a target as SwiftPM makes one. All blocks of one target share it: the README's blocks
#   form one program (one MySettings, one Theme), and a name declared twice fails the build.
# - Its shape: by default a block is whole declarations at file scope (imports, types,
#   extensions). After `<!-- snippet: statements -->` it is statements: its imports stay at file
#   scope and the rest becomes the body of a function `async throws`. After
#   `<!-- snippet: members -->` it is members of a settings class: the body of a
#   `final class …: AppSettingsObject, @unchecked Sendable`. A marker may name two words, as in
#   `<!-- snippet: main-actor, statements -->`. The markers are HTML comments: GitHub does not show them.
# - Imports: every block must import what it uses (MemberImportVisibility is on in the package).
# - `@main` is left out (a library target has no entry point); the type is compiled as written.
# - SwiftUI: on Apple platforms the SDK's; on Linux a stand-in with the SDK's signatures
#   (IntegrationTests/ReadmeSnippets/Sources/SwiftUIStandIn), which is type-checked, never run.
# Only the README's tests are run (MyAppTests, in a temporary HOME); the rest is compiled, not run.
#
# Usage: scripts/check-readme-snippets.sh [--self-test]
#   --self-test  also breaks one snippet in a scratch copy of the README and requires the build to
#                fail, naming README.md and the broken line.
# Environment: SCRATCH_PATH  SwiftPM build directory to use (default: the one of
#                            scripts/check-default-isolation.sh, so AppSettings is built once for both)
set -euo pipefail

cd "$(dirname "$0")/.."

package=IntegrationTests/ReadmeSnippets
options=(--package-path "$package" --scratch-path "${SCRATCH_PATH:-IntegrationTests/DefaultIsolation/.build/strict}")
self_test=false
[ "${1:-}" = "--self-test" ] && self_test=true

# The generated files are removed when the script ends, so that nothing else (swift format, a
# plain build of the package) sees them; a failed build's messages name README.md's lines.
scratch="$(mktemp -d)"
remove_generated() {
    rm -rf "$scratch"
    find "$package/Sources" "$package/Tests" -name 'README_*.swift' -delete
}
trap remove_generated EXIT

# write_snippets README: replaces the package's README_*.swift with the blocks of README; prints
# how many blocks it wrote.
write_snippets() {
    python3 - "$1" "$package" <<'PYTHON'
import pathlib, re, sys

readme, package = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
targets = {"app": package / "Sources/MyApp", "main-actor": package / "Sources/MyXcodeApp",
           "tests": package / "Tests/MyAppTests"}
for directory in targets.values():
    for old in directory.glob("README_*.swift"):
        old.unlink()

lines = readme.read_text().split("\n")
marker = re.compile(r"^<!--\s*snippet:\s*(.*?)\s*-->$")
known = {"main-actor", "statements", "members"}
count, index = 0, 0
while index < len(lines):
    if lines[index].strip() != "```swift":
        index += 1
        continue
    opening = index + 1                                   # 1-based line of the opening fence
    words = set()
    if index > 0 and (found := marker.match(lines[index - 1].strip())):
        words = {word.strip() for word in found.group(1).split(",") if word.strip()}
        if unknown := words - known:
            sys.exit(f"README.md:{index}: unknown snippet marker word(s): {', '.join(sorted(unknown))}")
    end = index + 1
    while end < len(lines) and lines[end].strip() != "```":
        end += 1
    if end == len(lines):
        sys.exit(f"README.md:{opening}: the ```swift block is not closed")
    body = lines[index + 1:end]
    first = opening + 1                                   # README line of the block's first line
    is_import = lambda line: re.match(r"^\s*(@testable\s+)?import\s", line) is not None
    body = [re.sub(r"^(\s*)@main\s+", r"\1", line) for line in body]

    if any(re.match(r"^\s*import\s+Testing\b", line) for line in body):
        target = "tests"
    elif "main-actor" in words:
        target = "main-actor"
    else:
        target = "app"
    location = f'#sourceLocation(file: "README.md", line: {first})'
    name = f"ReadmeSnippetLine{opening}"
    if "statements" in words or "members" in words:
        imports = [line for line in body if is_import(line)]
        rest = ["" if is_import(line) else line for line in body]
        if "statements" in words:
            head = [f"func {name.replace('Readme', 'readme', 1)}() async throws {{"]
        else:
            imports = ["import AppSettings"] + imports
            head = [f"final class {name}: AppSettingsObject, @unchecked Sendable {{"]
        text = imports + head + [location] + rest + ["#sourceLocation()", "}"]
    else:
        text = [location] + body + ["#sourceLocation()"]
    header = f"// Generated by scripts/check-readme-snippets.sh from README.md, line {opening}. Do not edit."
    (targets[target] / f"README_{opening}.swift").write_text("\n".join([header] + text) + "\n")
    count += 1
    index = end + 1
if count == 0:
    sys.exit("README.md has no ```swift block: nothing to check")
print(count)
PYTHON
}

build() {
    swift build "${options[@]}" --build-tests -Xswiftc -warnings-as-errors
}

if $self_test; then
    echo "==> Self-test: a README with one snippet broken must fail to build"
    # The first line of the first ```swift block gets a statement that cannot compile.
    broken_line="$(grep -n '^```swift$' README.md | head -1 | cut -d: -f1)"
    broken_line=$((broken_line + 1))
    awk -v line="$broken_line" 'NR == line { print "let readmeSnippetSelfTest: Int = \"not a number\"" } { print }' \
        README.md >"$scratch/README.md"
    write_snippets "$scratch/README.md" >/dev/null
    if build >"$scratch/build.log" 2>&1; then
        echo "error: the build passed with a broken snippet: this check cannot fail" >&2
        exit 1
    fi
    if ! grep -q "README.md:$broken_line:.*error:" "$scratch/build.log"; then
        echo "error: the build failed, but not naming README.md:$broken_line:" >&2
        cat "$scratch/build.log" >&2
        exit 1
    fi
    grep "README.md:$broken_line:.*error:" "$scratch/build.log" | head -1
    echo "==> The broken snippet failed the build, naming its line"
fi

count="$(write_snippets README.md)"
echo "==> Building the README's $count Swift snippets ($package), warnings as errors"
build
echo "==> All $count snippets of README.md compile"

# The README's test is a test: run it, in a temporary HOME (it must leave no settings there).
echo "==> Running the README's tests"
mkdir "$scratch/home"
HOME="$scratch/home" swift test "${options[@]}" --skip-build
if [ -d "$scratch/home/.config" ] && [ -n "$(find "$scratch/home/.config" -mindepth 1 -print -quit)" ]; then
    echo "the README's test wrote to the configuration directory:"; find "$scratch/home/.config"; exit 1
fi

#!/usr/bin/env bash
# Compiles and tests the library's Apple-only code on Linux, against stand-ins of the Apple APIs it
# calls (IntegrationTests/AppleBranches: Apple's exact signatures, implemented as Apple documents
# them within one process). Three steps:
#
# 1. Every conditional-compilation block of Sources/, Inspector/ and Example/ that is compiled for
#    Apple platforms only must be one a stand-in build compiles too: its condition names one of
#    the builds' flags (APPLE_STAND_INS, or APPLE_STAND_INS_MACOS / APPLE_STAND_INS_TVOS for a
#    branch between Apple platforms, APPLE_STAND_INS_NSCODER for the decoder), or it holds imports
#    only.
#    The macOS and tvOS branches are compiled by one build with both flags, so no #if chain may
#    name both (its later branch would never be compiled): the same check refuses one.
# 2. The stand-in build: the library as Apple platforms build it (as iOS, then its macOS and
#    tvOS branches in one build), the decoder's branch against Apple's NSCoder (as iOS, and in
#    that build as macOS), with warnings as errors; then its tests: the package's whole suite
#    (Tests/AppSettingsTests, but for what needs Linux-only machinery; the list and the reasons
#    are in the package's Package.swift) over the model of Apple's behaviour (AppleStandIns/AppleBehaviour.swift: UserDefaults posting
#    on the writing thread, protected data, Darwin's numbers, containerURL per platform, expiring
#    activities), and the Apple store's own (the store's locks, the App Group's lock file and
#    background-task assertion, notify(3) notices, the secure-coding method, the findings of
#    issues 26 and 47), each in a process of its own (the latter change the model's process-wide state).
#    The step prints how many tests ran.
# 3. Unless --no-self-test: the library's stand-in build in a scratch copy with an error put into
#    an Apple-only block must fail, and step 1 must refuse a made-up #if chain that names both the
#    macOS and the tvOS flag, so that these checks can fail.
#
# Environment: SCRATCH_PATH  SwiftPM build directory (default: IntegrationTests/AppleBranches/.build)
set -euo pipefail

cd "$(dirname "$0")/.."
root="$(pwd)"
package=IntegrationTests/AppleBranches
scratch="${SCRATCH_PATH:-$package/.build}"
# The build of the macOS and tvOS branches, in a directory of its own inside the first's (ignored
# by git).
platform_scratch="$scratch/platforms/MACOS-TVOS"
self_test=1
[ "${1:-}" = "--no-self-test" ] && self_test=0

# check_blocks ROOT: step 1 over ROOT's Sources, Inspector and Example.
check_blocks() {
    python3 - "$1" <<'PYTHON'
import pathlib, re, sys

root = pathlib.Path(sys.argv[1])
apple = re.compile(r"canImport\((Darwin|ObjectiveC|os|UIKit|AppKit)\)|os\((macOS|iOS|tvOS|watchOS|visionOS)\)")
linux = re.compile(r"os\(Linux\)|canImport\((Glibc|Musl)\)")
problems = []
for folder in ("Sources", "Inspector", "Example"):
    for path in sorted((root / folder).rglob("*.swift")):
        relative = str(path.relative_to(root))
        stack = []  # per open #if: [condition of the branch, is Apple-only, first line, body lines, conditions so far]
        for number, line in enumerate(path.read_text().splitlines(), 1):
            text = line.strip()
            directive = re.match(r"#(if|elseif|else|endif)\b\s*(.*)", text)
            if directive:
                kind, condition = directive.group(1), directive.group(2).split("//")[0].strip()
                if kind in ("elseif", "else", "endif") and stack:
                    branch = stack[-1]
                    if branch[1] and any(not re.match(r"^(import\s|@_exported import\s|//|$)", l) for l in branch[3]):
                        problems.append(f"{relative}:{branch[2]}: #if {branch[0]} holds Apple-only code "
                                            "that the stand-in build does not compile (add '|| APPLE_STAND_INS')")
                if kind == "if":
                    stack.append([condition, False, number, [], [condition]])
                elif kind == "elseif":
                    stack[-1][0], stack[-1][2], stack[-1][3] = condition, number, []
                    stack[-1][4].append(condition)
                elif kind == "else":
                    earlier = stack[-1][4]
                    # An #else is Apple-only when the branches before it were for Linux alone.
                    condition = "#else of " + " / ".join(earlier)
                    is_apple = all(linux.search(c) and "APPLE_STAND_INS" not in c and not c.startswith("!") for c in earlier)
                    stack[-1][0], stack[-1][1], stack[-1][2], stack[-1][3] = condition, is_apple, number, []
                    continue
                elif kind == "endif":
                    chain = " ".join(stack[-1][4])
                    if "APPLE_STAND_INS_MACOS" in chain and "APPLE_STAND_INS_TVOS" in chain:
                        problems.append(f"{relative}:{number}: an #if chain names both APPLE_STAND_INS_MACOS and "
                                        "APPLE_STAND_INS_TVOS, which one build compiles together: split it")
                    stack.pop()
                    continue
                stack[-1][1] = bool(apple.search(condition)) and "APPLE_STAND_INS" not in condition \
                    and not condition.lstrip().startswith("!")
                continue
            if stack:
                stack[-1][3].append(text)
if problems:
    print("\n".join(problems))
    sys.exit(1)
print("none: every Apple-only block is compiled by a stand-in build, and no #if chain names both macOS and tvOS")
PYTHON
}

echo "==> Apple-only blocks the stand-in build does not compile"
check_blocks "$root"

build() {
    swift build --package-path "$1" --scratch-path "$2" --build-tests -Xswiftc -warnings-as-errors
}

echo "==> Building $package (the Apple branches against the stand-ins) with warnings as errors"
build "$package" "$scratch"

# The branches between Apple platforms: the library and the decoder as macOS builds them, the
# library as tvOS and watchOS build it (compiled only: the tests above ran the iOS build). One build
# with both flags: their branches never share an #if chain (checked above), so each is compiled.
echo "==> Building the library's and the decoder's macOS and tvOS branches"
for target in AppSettings AppleCoder; do
    swift build --package-path "$package" --scratch-path "$platform_scratch" --target "$target" \
        -Xswiftc -warnings-as-errors -Xswiftc -DAPPLE_STAND_INS_MACOS -Xswiftc -DAPPLE_STAND_INS_TVOS
done

echo "==> Running its tests: the whole suite on the model of Apple's behaviour, then the Apple store's own"
# In two processes: the Apple store's own tests change the model's process-wide state (protected
# data, App Groups, suspension), which the suite's tests, run in parallel in the same process,
# would see (a save refused while a test made protected data unavailable failed
# SettingsAppBothWaysTests on the model once, 2026-12-03).
ran=0
status=0
for selection in --skip --filter; do
    log="$(mktemp)"
    set +e
    HOME="$(mktemp -d)" swift test --package-path "$package" --scratch-path "$scratch" --skip-build \
        "$selection" '^AppleBranchTests\.' 2>&1 | tee "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    set -e
    # Swift Testing's summary line: "Test run with N tests in M suites passed/failed ...".
    count="$(grep -Eo 'Test run with [0-9]+ tests' "$log" | tail -n 1 | grep -Eo '[0-9]+' || true)"
    rm -f "$log"
    ran=$((ran + ${count:-0}))
    [ "${count:-0}" -gt 0 ] || { echo "no test ran with $selection '^AppleBranchTests\.'"; status=1; }
done
echo "Tests run on the Apple-model build: $ran (left out, and why: $package/Package.swift)"
[ "$status" -eq 0 ] || exit "$status"
[ "$ran" -gt 100 ] || { echo "too few tests ran on the Apple-model build"; exit 1; }

if [ "$self_test" -eq 1 ]; then
    echo "==> Self-test: an error in an Apple-only block must fail the library's stand-in build"
    copy="$(mktemp -d)"
    trap 'rm -rf "$copy"' EXIT
    mkdir -p "$copy/IntegrationTests"
    cp -R Sources "$copy/Sources"
    cp -R Tests "$copy/Tests"  # the suite the package runs on the model is linked from there
    cp -R "$package" "$copy/IntegrationTests/"
    rm -rf "$copy/$package/.build"
    broken="$copy/Sources/AppSettings/Internal/Store/StoreWatcher+Darwin.swift"
    # After the file's first Apple-only line: a statement no compiler accepts.
    sed -i '0,/^#if canImport(Darwin) || APPLE_STAND_INS$/s//&\n    let brokenOnPurpose: Int = "not an Int"/' "$broken"
    grep -q brokenOnPurpose "$broken"
    if swift build --package-path "$copy/$package" --scratch-path "$copy/.build" --target AppSettings \
        -Xswiftc -warnings-as-errors >"$copy/build.log" 2>&1; then
        echo "the build with a broken Apple-only block passed: this check cannot fail"
        exit 1
    fi
    grep -m1 "brokenOnPurpose\|cannot convert" "$copy/build.log" || true
    echo "the broken build failed, as it must"

    echo "==> Self-test: an #if chain naming both the macOS and the tvOS flag must be refused"
    mkdir -p "$copy/chain/Sources"
    printf '%s\n' '#if os(macOS) || APPLE_STAND_INS_MACOS' 'let limit = 1' \
        '#elseif os(tvOS) || APPLE_STAND_INS_TVOS' 'let limit = 2' '#endif' >"$copy/chain/Sources/Chain.swift"
    if check_blocks "$copy/chain" >"$copy/chain.log"; then
        cat "$copy/chain.log"
        echo "a chain naming both flags passed: the one build of both could leave a branch out unseen"
        exit 1
    fi
    grep "names both" "$copy/chain.log"
fi
echo "Apple branches: ok"

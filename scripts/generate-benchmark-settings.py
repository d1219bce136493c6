#!/usr/bin/env python3
"""Writes Benchmarks/GeneratedSettings.swift: the settings sets the benchmark saves and loads.

For each size N it declares an `AppSettingsObject` subclass `SettingsN` with N `@Setting`
properties and an equivalent `Codable` struct `PlainSettingsN` (the PropertyListEncoder
contender).

Sets larger than FLAT_LIMIT are split, because Swift 6.3's definite-initialization and
ownership passes grow quadratically with the number of properties one initializer or one
function touches (2,000 `@Setting` properties in one class: about 350 s for that class alone in
a release build; a synthesized `Codable` of 2,000 properties: minutes as well). The settings
class becomes a chain of subclasses of CHUNK `final` settings each (still one set, stored as one flat
archive), and the struct keeps its properties in parts of CHUNK with a written-out `Codable` conformance
that encodes one flat keyed container (exactly what a synthesized conformance of one flat
struct encodes). Setting i has kind i % 6: Bool, Int, Double, String, Date, [String]; its value is
`BenchmarkValues.value(at: i)` (Benchmarks/SettingValues.swift), which the per-key contender
writes too, so all three contenders store the same values under the same names.

Run from the package root after changing SIZES or the value rules:

    python3 scripts/generate-benchmark-settings.py
"""

import pathlib

SIZES = [20, 200, 2000]
FLAT_LIMIT = 200
CHUNK = 50
OUTPUT = pathlib.Path(__file__).resolve().parent.parent / "Benchmarks" / "GeneratedSettings.swift"


def declaration(index: int) -> str:
    """The type and initial value of setting `index`; must match BenchmarkValues.value(at:)."""
    kind = index % 6
    if kind == 0:
        return f"Bool = {'true' if (index // 6) % 2 == 0 else 'false'}"
    if kind == 1:
        return f"Int = {index * 1000 + 7}"
    if kind == 2:
        return f"Double = {index}.25"
    if kind == 3:
        return f'String = "value {index}"'
    if kind == 4:
        return f"Date = Date(timeIntervalSinceReferenceDate: {700_000_000 + index})"
    return f'[String] = ["first {index}", "second {index}"]'


def settings_class(size: int) -> str:
    chunks = [range(start, min(start + CHUNK, size)) for start in range(0, size, CHUNK)]
    if size <= FLAT_LIMIT:
        chunks = [range(size)]
    lines = []
    superclass = "AppSettingsObject"
    for number, chunk in enumerate(chunks[:-1]):
        name = f"Settings{size}Part{number}"
        lines += [
            f"/// Settings {chunk.start} to {chunk.stop - 1} of `Settings{size}`.",
            f"class {name}: {superclass}, @unchecked Sendable {{",
        ]
        # `final`: otherwise each subclass's vtable repeats every inherited accessor (quadratic).
        lines += [f"    @Setting final var setting{i}: {declaration(i)}" for i in chunk]
        lines += ["}", ""]
        superclass = name
    lines += [
        f"/// {size} settings of mixed types, stored as one archive.",
        f"final class Settings{size}: {superclass}, @unchecked Sendable {{",
    ]
    lines += [f"    @Setting var setting{i}: {declaration(i)}" for i in chunks[-1]]
    lines += [
        "",
        f'    override var userDefaultsKeyPostfix: String {{ "Settings{size}" }}',
        "",
        "    /// Changes one setting so that the set has unsaved changes.",
        "    func makeDirty() { setting0.toggle() }",
        "",
        "    /// Reads a few settings, for the black hole.",
        "    var checksum: Int { setting1 &+ setting3.utf8.count &+ setting5.count }",
        "}",
    ]
    return "\n".join(lines)


def plain_struct(size: int) -> str:
    if size <= FLAT_LIMIT:
        lines = [
            f"/// The same {size} settings as `Settings{size}`, as a `Codable` value.",
            f"struct PlainSettings{size}: Codable, Sendable {{",
        ]
        lines += [f"    var setting{i}: {declaration(i)}" for i in range(size)]
        lines += [
            "",
            "    /// Changes one setting, as `Settings.makeDirty()` does.",
            "    mutating func makeDirty() { setting0.toggle() }",
            "",
            "    /// Reads a few settings, for the black hole.",
            "    var checksum: Int { setting1 &+ setting3.utf8.count &+ setting5.count }",
            "}",
        ]
        return "\n".join(lines)
    chunks = [range(start, min(start + CHUNK, size)) for start in range(0, size, CHUNK)]
    lines = [
        f"/// The same {size} settings as `Settings{size}`, as a `Codable` value that encodes one flat",
        "/// keyed container, as a synthesized conformance of one struct with all of them would.",
        f"struct PlainSettings{size}: Codable, Sendable {{",
    ]
    lines += [f"    var part{n} = PlainSettings{size}Part{n}()" for n in range(len(chunks))]
    lines += [
        "",
        "    init() {}",
        "",
        "    init(from decoder: any Decoder) throws {",
        "        let container = try decoder.container(keyedBy: BenchmarkCodingKey.self)",
    ]
    lines += [f"        try part{n}.decode(from: container)" for n in range(len(chunks))]
    lines += [
        "    }",
        "",
        "    func encode(to encoder: any Encoder) throws {",
        "        var container = encoder.container(keyedBy: BenchmarkCodingKey.self)",
    ]
    lines += [f"        try part{n}.encode(to: &container)" for n in range(len(chunks))]
    lines += [
        "    }",
        "",
        "    /// Changes one setting, as `Settings.makeDirty()` does.",
        "    mutating func makeDirty() { part0.setting0.toggle() }",
        "",
        "    /// Reads a few settings, for the black hole.",
        "    var checksum: Int { part0.setting1 &+ part0.setting3.utf8.count &+ part0.setting5.count }",
        "}",
    ]
    for n, chunk in enumerate(chunks):
        lines += [
            "",
            f"/// Settings {chunk.start} to {chunk.stop - 1} of `PlainSettings{size}`.",
            f"struct PlainSettings{size}Part{n}: Sendable {{",
        ]
        lines += [f"    var setting{i}: {declaration(i)}" for i in chunk]
        lines += [
            "",
            "    mutating func decode(from container: KeyedDecodingContainer<BenchmarkCodingKey>) throws {",
        ]
        lines += [
            f"        setting{i} = try container.decode({declaration(i).split(' = ')[0]}.self, "
            + f"forKey: BenchmarkCodingKey.all[{i}])"
            for i in chunk
        ]
        lines += [
            "    }",
            "",
            "    func encode(to container: inout KeyedEncodingContainer<BenchmarkCodingKey>) throws {",
        ]
        lines += [f"        try container.encode(setting{i}, forKey: BenchmarkCodingKey.all[{i}])" for i in chunk]
        lines += ["    }", "}"]
    return "\n".join(lines)


def coding_key() -> str:
    return f"""/// The keys of the written-out `Codable` conformances: `setting0` to `setting{max(SIZES) - 1}`.
struct BenchmarkCodingKey: CodingKey {{
    static let all = (0..<{max(SIZES)}).map {{ BenchmarkCodingKey(stringValue: "setting\\($0)") }}

    let stringValue: String
    var intValue: Int? {{ nil }}

    init(stringValue: String) {{ self.stringValue = stringValue }}
    init?(intValue: Int) {{ nil }}
}}"""


def main() -> None:
    parts = [
        "// swift-format-ignore-file",
        "// Generated by scripts/generate-benchmark-settings.py: do not edit by hand.",
        "",
        "import AppSettings",
        "import Foundation",
        "",
    ]
    for size in SIZES:
        if size > FLAT_LIMIT:
            # The large sets are most of a debug build's time (the test and sanitizer builds
            # compile this target too); debug builds get stand-ins, and the benchmark refuses to
            # run there (Benchmarks/main.swift), so no debug figure can be quoted by mistake.
            parts += [
                "#if DEBUG",
                f"typealias Settings{size} = Settings{FLAT_LIMIT}",
                f"typealias PlainSettings{size} = PlainSettings{FLAT_LIMIT}",
                "#else",
                settings_class(size),
                "",
                plain_struct(size),
                "#endif",
                "",
            ]
        else:
            parts += [settings_class(size), "", plain_struct(size), ""]
    parts += [coding_key(), ""]
    OUTPUT.write_text("\n".join(parts))
    print(f"wrote {OUTPUT.relative_to(OUTPUT.parent.parent)} ({', '.join(map(str, SIZES))} settings)")


if __name__ == "__main__":
    main()

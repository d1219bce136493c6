// Writes the settings sets the benchmark saves and loads, at build time (the BenchmarkSettingsPlugin
// build-tool plugin runs it for the Benchmarks target; nothing generated is committed).
//
// For each size N it declares an `AppSettingsObject` subclass `SettingsN` with N `@Setting`
// properties and an equivalent `Codable` struct `PlainSettingsN` (the PropertyListEncoder
// contender).
//
// Sets larger than `flatLimit` are split, because Swift 6.3's definite-initialization and
// ownership passes grow quadratically with the number of properties one initializer or one
// function touches (2,000 `@Setting` properties in one class: about 350 s for that class alone in
// a release build; a synthesized `Codable` of 2,000 properties: minutes as well). The settings
// class becomes a chain of subclasses of `chunk` `final` settings each (still one set, stored as
// one flat archive), and the struct keeps its properties in parts of `chunk` with a written-out
// `Codable` conformance that encodes one flat keyed container (exactly what a synthesized
// conformance of one flat struct encodes). Setting i has kind i % 6: Bool, Int, Double, String,
// Date, [String]; its value is `BenchmarkValues.value(at: i)` (Benchmarks/SettingValues.swift),
// which the per-key contender writes too, so all three contenders store the same values under
// the same names.
//
// Usage: BenchmarkSettingsGenerator OUTPUT.swift

import Foundation

let sizes = [20, 200, 2000]
let flatLimit = 200
let chunk = 50

/// The type and initial value of setting `index`; must match `BenchmarkValues.value(at:)`.
func declaration(_ index: Int) -> String {
    switch index % 6 {
    case 0: "Bool = \((index / 6) % 2 == 0 ? "true" : "false")"
    case 1: "Int = \(index * 1000 + 7)"
    case 2: "Double = \(index).25"
    case 3: "String = \"value \(index)\""
    case 4: "Date = Date(timeIntervalSinceReferenceDate: \(700_000_000 + index))"
    default: "[String] = [\"first \(index)\", \"second \(index)\"]"
    }
}

func type(_ index: Int) -> String {
    String(declaration(index).prefix { $0 != " " })
}

func chunks(_ size: Int) -> [Range<Int>] {
    stride(from: 0, to: size, by: chunk).map { $0..<min($0 + chunk, size) }
}

func settingsClass(_ size: Int) -> [String] {
    let parts = size <= flatLimit ? [0..<size] : chunks(size)
    var lines: [String] = []
    var superclass = "AppSettingsObject"
    for (number, part) in parts.dropLast().enumerated() {
        let name = "Settings\(size)Part\(number)"
        lines += [
            "/// Settings \(part.lowerBound) to \(part.upperBound - 1) of `Settings\(size)`.",
            "class \(name): \(superclass), @unchecked Sendable {",
        ]
        // `final`: otherwise each subclass's vtable repeats every inherited accessor (quadratic).
        lines += part.map { "    @Setting final var setting\($0): \(declaration($0))" }
        lines += ["}", ""]
        superclass = name
    }
    lines += [
        "/// \(size) settings of mixed types, stored as one archive.",
        "final class Settings\(size): \(superclass), @unchecked Sendable {",
    ]
    lines += parts.last!.map { "    @Setting var setting\($0): \(declaration($0))" }
    lines += [
        "",
        "    override var userDefaultsKeyPostfix: String { \"Settings\(size)\" }",
        "",
        "    /// Changes one setting so that the set has unsaved changes.",
        "    func makeDirty() { setting0.toggle() }",
        "",
        "    /// Reads a few settings, for the black hole.",
        "    var checksum: Int { setting1 &+ setting3.utf8.count &+ setting5.count }",
        "}",
    ]
    return lines
}

func plainStruct(_ size: Int) -> [String] {
    let blackHole = [
        "",
        "    /// Changes one setting, as `Settings.makeDirty()` does.",
    ]
    if size <= flatLimit {
        var lines = [
            "/// The same \(size) settings as `Settings\(size)`, as a `Codable` value.",
            "struct PlainSettings\(size): Codable, Sendable {",
        ]
        lines += (0..<size).map { "    var setting\($0): \(declaration($0))" }
        lines +=
            blackHole + [
                "    mutating func makeDirty() { setting0.toggle() }",
                "",
                "    /// Reads a few settings, for the black hole.",
                "    var checksum: Int { setting1 &+ setting3.utf8.count &+ setting5.count }",
                "}",
            ]
        return lines
    }
    let parts = chunks(size)
    var lines = [
        "/// The same \(size) settings as `Settings\(size)`, as a `Codable` value that encodes one flat",
        "/// keyed container, as a synthesized conformance of one struct with all of them would.",
        "struct PlainSettings\(size): Codable, Sendable {",
    ]
    lines += parts.indices.map { "    var part\($0) = PlainSettings\(size)Part\($0)()" }
    lines += [
        "",
        "    init() {}",
        "",
        "    init(from decoder: any Decoder) throws {",
        "        let container = try decoder.container(keyedBy: BenchmarkCodingKey.self)",
    ]
    lines += parts.indices.map { "        try part\($0).decode(from: container)" }
    lines += [
        "    }",
        "",
        "    func encode(to encoder: any Encoder) throws {",
        "        var container = encoder.container(keyedBy: BenchmarkCodingKey.self)",
    ]
    lines += parts.indices.map { "        try part\($0).encode(to: &container)" }
    lines +=
        ["    }"] + blackHole + [
            "    mutating func makeDirty() { part0.setting0.toggle() }",
            "",
            "    /// Reads a few settings, for the black hole.",
            "    var checksum: Int { part0.setting1 &+ part0.setting3.utf8.count &+ part0.setting5.count }",
            "}",
        ]
    for (number, part) in parts.enumerated() {
        lines += [
            "",
            "/// Settings \(part.lowerBound) to \(part.upperBound - 1) of `PlainSettings\(size)`.",
            "struct PlainSettings\(size)Part\(number): Sendable {",
        ]
        lines += part.map { "    var setting\($0): \(declaration($0))" }
        lines += [
            "",
            "    mutating func decode(from container: KeyedDecodingContainer<BenchmarkCodingKey>) throws {",
        ]
        lines += part.map {
            "        setting\($0) = try container.decode(\(type($0)).self, forKey: BenchmarkCodingKey.all[\($0)])"
        }
        lines += [
            "    }",
            "",
            "    func encode(to container: inout KeyedEncodingContainer<BenchmarkCodingKey>) throws {",
        ]
        lines += part.map { "        try container.encode(setting\($0), forKey: BenchmarkCodingKey.all[\($0)])" }
        lines += ["    }", "}"]
    }
    return lines
}

let codingKey = """
    /// The keys of the written-out `Codable` conformances: `setting0` to `setting\(sizes.max()! - 1)`.
    struct BenchmarkCodingKey: CodingKey {
        static let all = (0..<\(sizes.max()!)).map { BenchmarkCodingKey(stringValue: "setting\\($0)") }

        let stringValue: String
        var intValue: Int? { nil }

        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    """

var lines = [
    "// swift-format-ignore-file",
    "// Generated at build time by Plugins/BenchmarkSettingsGenerator: do not edit.",
    "",
    "import AppSettings",
    "import Foundation",
    "",
]
for size in sizes {
    if size > flatLimit {
        // The large sets are most of a debug build's time (the test and sanitizer builds compile
        // this target too); debug builds get stand-ins, and the benchmark refuses to run there
        // (Benchmarks/main.swift), so no debug figure can be quoted by mistake.
        lines += ["#if DEBUG", "typealias Settings\(size) = Settings\(flatLimit)"]
        lines += ["typealias PlainSettings\(size) = PlainSettings\(flatLimit)", "#else"]
        lines += settingsClass(size) + [""] + plainStruct(size) + ["#endif", ""]
    } else {
        lines += settingsClass(size) + [""] + plainStruct(size) + [""]
    }
}
lines += [codingKey, ""]

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: BenchmarkSettingsGenerator OUTPUT.swift\n".utf8))
    exit(2)
}
let output = URL(fileURLWithPath: CommandLine.arguments[1])
do {
    try Data(lines.joined(separator: "\n").utf8).write(to: output, options: .atomic)
} catch {
    FileHandle.standardError.write(Data("BenchmarkSettingsGenerator: \(error)\n".utf8))
    exit(1)
}

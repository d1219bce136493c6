import Foundation

/// Where measured work leaves its results, so that the optimizer cannot remove the work.
nonisolated(unsafe) var blackHoleSink = 0

/// Consumes a value derived from measured work.
@inline(never)
func blackHole(_ value: Int) {
    blackHoleSink &+= value
}

/// The nanoseconds `body` takes.
@inline(__always)
func nanoseconds(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    let elapsed = (clock.now - start).components
    return Double(elapsed.seconds) * 1e9 + Double(elapsed.attoseconds) / 1e9
}

/// One way of doing the measured operation: each call prepares untimed, times the operation,
/// and returns nanoseconds per operation.
struct Contender {
    let name: String
    let sample: () throws -> Double

    /// A contender whose sample runs `body` `iterations` times (argument: the iteration number)
    /// and reports the time per iteration.
    static func repeated(_ name: String, iterations: Int, _ body: @escaping (Int) throws -> Void) -> Contender {
        Contender(name: name) {
            try nanoseconds {
                for iteration in 0..<iterations { try body(iteration) }
            } / Double(iterations)
        }
    }
}

/// The median nanoseconds per operation of each contender, sampled in turn (the starting
/// contender rotates from sample to sample) after two warm-up samples each.
func medians(of contenders: [Contender], samples: Int) throws -> [Double] {
    for contender in contenders {
        _ = try contender.sample()
        _ = try contender.sample()
    }
    var results = Array(repeating: [Double](), count: contenders.count)
    for sampleNumber in 0..<samples {
        for offset in 0..<contenders.count {
            let index = (sampleNumber + offset) % contenders.count
            results[index].append(try contenders[index].sample())
        }
    }
    return results.map { times in
        let sorted = times.sorted()
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

/// One line of the results table.
struct ResultRow {
    let section: String
    let name: String
    let value: Double
    /// The first row of a section that the others are compared with (shown as "1.00x").
    let reference: Double?
    let settingCount: Int?
    let isBytes: Bool
}

/// Collects measurements and prints them as a Markdown table.
final class ResultTable {
    private(set) var rows: [ResultRow] = []
    private var values: [String: Double] = [:]

    /// Records the medians of `contenders`, the first one being the reference of the section.
    @discardableResult
    func measure(
        _ section: String,
        _ contenders: [Contender],
        samples: Int,
        settingCount: Int? = nil
    ) throws -> [Double] {
        let results = try medians(of: contenders, samples: samples)
        for (contender, result) in zip(contenders, results) {
            add(section, contender.name, result, reference: results[0], settingCount: settingCount)
        }
        return results
    }

    /// Records one value; `reference` is what the ratio column divides by.
    func add(
        _ section: String,
        _ name: String,
        _ value: Double,
        reference: Double? = nil,
        settingCount: Int? = nil,
        isBytes: Bool = false
    ) {
        rows.append(
            ResultRow(
                section: section,
                name: name,
                value: value,
                reference: reference,
                settingCount: settingCount,
                isBytes: isBytes
            )
        )
        values[section + " / " + name] = value
        print("  " + Self.padded(section, 28) + Self.padded(name, 48) + Self.format(value, isBytes: isBytes))
    }

    /// The value recorded under `section` and `name`.
    func value(_ section: String, _ name: String) -> Double {
        guard let value = values[section + " / " + name] else { fatalError("no result for \(section) / \(name)") }
        return value
    }

    /// The table: one row per result, with the time per setting and the ratio to the section's
    /// first row (above 1: slower or larger than it).
    func markdown() -> String {
        var lines = [
            "| Measurement | Contender | Median | Per setting | vs. first row |",
            "|---|---|---:|---:|---:|",
        ]
        for row in rows {
            let perSetting = row.settingCount.map { Self.format(row.value / Double($0), isBytes: row.isBytes) } ?? ""
            let ratio = row.reference.map { String(format: "%.2fx", row.value / $0) } ?? ""
            lines.append(
                "| \(row.section) | \(row.name) | \(Self.format(row.value, isBytes: row.isBytes)) | \(perSetting) | \(ratio) |"
            )
        }
        return lines.joined(separator: "\n")
    }

    static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    static func format(_ value: Double, isBytes: Bool) -> String {
        if isBytes { return String(format: "%.0f B", value) }
        switch value {
        case ..<1_000: return String(format: "%.1f ns", value)
        case ..<1_000_000: return String(format: "%.2f µs", value / 1_000)
        default: return String(format: "%.2f ms", value / 1_000_000)
        }
    }
}

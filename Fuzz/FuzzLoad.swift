// libFuzzer target: arbitrary bytes through the whole load path, as if they were stored under a
// settings key: keyed-archive reader, stored values, migration, per-setting conversion and
// validation, nested objects, `NSSecureCoding` values, `checkAfterDecode()`. Then the loaded copy
// is used the way an app would: described, exported, and archived again; that archive must load
// without error and archive once more to the same stored values, so that nothing a load accepted
// changes or gets lost over the next synchronizations. Built and run by scripts/fuzz.sh.

import Foundation

/// libFuzzer calls this with each input; a trap or sanitizer report here is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLoad(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    let (copy, error) = TestingHooks(object: fuzzTemplate).loadCopy(fromStoredBytes: data)
    _ = error?.description
    _ = copy.description
    _ = copy.dictionaryRepresentation()
    _ = copy.hash
    guard let archived = try? TestingHooks(object: copy).archivedBytes() else { return 0 }
    let (again, againError) = TestingHooks(object: fuzzTemplate).loadCopy(fromStoredBytes: archived)
    if let againError {
        fatalError("the library could not load its own archive of a loaded state: \(againError)\nstate: \(copy)")
    }
    guard let rearchived = try? TestingHooks(object: again).archivedBytes() else {
        fatalError("a state loaded from the library's own archive could not be archived: \(again)")
    }
    let first = canonicalSettings(archived)
    let second = canonicalSettings(rearchived)
    if first != second {
        fatalError("archiving changed what was loaded:\n\(first)\n\(second)")
    }
    return 0
}

/// The stored settings of an archive the library wrote, as text in which sets are sorted,
/// dictionaries ordered by key and numbers given by their bits, so equal states compare equal.
private func canonicalSettings(_ archive: Data) -> String {
    do {
        var reader = try KeyedArchiveReader(archive)
        let set = try reader.root()
        var result = "format \(set.formatVersion ?? 0), schema \(set.schemaVersion ?? 0): "
        for (name, field) in set.settings.sorted(by: { $0.name < $1.name }) {
            result += "\(name)=\(canonical(try reader.value(of: field, depth: 1)));"
        }
        return result
    } catch {
        return "unreadable: \(error)"
    }
}

private func canonical(_ value: StoredValue) -> String {
    switch value {
    case .double(let double): "d\(double.bitPattern)"
    case .float(let float): "f\(float.bitPattern)"
    case .date(let date): "t\(date.timeIntervalSinceReferenceDate.bitPattern)"
    case .array(let elements): "[\(elements.map(canonical).joined(separator: ","))]"
    case .set(let elements): "{\(elements.map(canonical).sorted().joined(separator: ","))}"
    case .dictionary(let entries):
        "(\(entries.sorted { $0.key < $1.key }.map { "\($0.key):\(canonical($0.value))" }.joined(separator: ",")))"
    default: "\(value)"
    }
}

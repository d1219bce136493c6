import AppSettings
import Foundation

/// The key postfix, chosen on the command line before the first settings object is created, so
/// that several sets can share one suite.
nonisolated(unsafe) var hostKeyPostfix = "HostSettings"

final class HostSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var counter = 0
    @Setting var label = ""
    @Setting var values: [Int] = []

    override var userDefaultsKeyPostfix: String { hostKeyPostfix }

    /// Sets the consistent triple for `value`.
    func setTriple(_ value: Int) {
        counter = value
        label = "v\(value)"
        values = [value, value, value]
    }

    /// Sets one setting for `value`: counter n, label "l<n>" or values [n].
    func setOne(_ setting: String, _ value: Int) {
        switch setting {
        case "counter": counter = value
        case "label": label = "l\(value)"
        case "values": values = [value]
        default: fail("unknown setting \(setting)")
        }
    }

    /// Sets the triple for `value` with a label of `length` characters (`v<n>:` and a letter that
    /// changes with `value`), so that the set's archive spans several 4 KiB blocks.
    func setLargeTriple(_ value: Int, length: Int) {
        setTriple(value)
        let prefix = "v\(value):"
        let letter = Character(UnicodeScalar(UInt8(97 + value % 26)))
        label = prefix + String(repeating: letter, count: max(0, length - prefix.count))
    }

    /// The fields on one line; a label longer than 64 characters is shown as its first 8, its
    /// length and an FNV-1a hash of the whole, so that two labels differing anywhere differ here.
    var fieldsLine: String {
        var shownLabel = label
        if label.utf8.count > 64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in label.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            shownLabel = "\(label.prefix(8))~\(label.utf8.count)~\(String(hash, radix: 16))"
        }
        return "counter=\(counter) label=\(shownLabel) values=\(values.map(String.init).joined(separator: ","))"
    }

    /// A whole triple, or the developer defaults (nothing stored yet).
    var isConsistent: Bool {
        if counter == 0, label.isEmpty, values.isEmpty { return true }
        return label == "v\(counter)" && values == [counter, counter, counter]
    }
}

/// Reads its own `shared` while `shared` is being created.
final class SelfReferencingSettings: AppSettingsObject, @unchecked Sendable {
    @Setting var volume = 1

    override func checkAfterDecode() {
        if volume > 10 { Self.shared.volume = 10 }
    }

    override func resetToDeveloperDefaults() {
        super.resetToDeveloperDefaults()
        _ = Self.shared.volume
    }
}

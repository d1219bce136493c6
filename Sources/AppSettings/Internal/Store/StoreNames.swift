/// The rules a suite name and a settings key follow before anything is read or written under
/// them: both end up in file names (`<suite>.plist`, `<key>.archive`), so neither may leave its
/// directory or be cut short.
enum StoreNames {
    /// The most UTF-8 bytes a suite name or a key may have: a file name holds 255, and the
    /// library's files add a suffix (`.plist`, `.archive`, a temporary file's random part).
    static let maximumByteCount = 200

    /// What is wrong with `name` as a suite name or a key, or `nil`: one pass over the UTF-8
    /// bytes, since every load and save checks its key.
    static func problem(with name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        var (hasNUL, hasSlash, hasTwoDots, previousIsDot) = (false, false, false, false)
        for byte in name.utf8 {
            let isDot = byte == UInt8(ascii: ".")
            hasNUL = hasNUL || byte == 0
            hasSlash = hasSlash || byte == UInt8(ascii: "/")
            hasTwoDots = hasTwoDots || (isDot && previousIsDot)
            previousIsDot = isDot
        }
        if hasNUL { return "it contains a NUL character" }
        if hasSlash { return "it contains '/'" }
        if hasTwoDots { return "it contains '..'" }
        if name.utf8.count > maximumByteCount {
            return "it is \(name.utf8.count) bytes long, more than the \(maximumByteCount)-byte limit"
        }
        return nil
    }

    /// Throws ``AppSettingsError/invalidSuiteName(name:reason:)`` for a suite name that breaks a rule.
    static func check(suiteName name: String) throws(AppSettingsError) {
        if let reason = problem(with: name) { throw .invalidSuiteName(name: name, reason: reason) }
    }

    /// Throws ``AppSettingsError/invalidKey(key:reason:)`` for a key that breaks a rule.
    static func check(key: String) throws(AppSettingsError) {
        if let reason = problem(with: key) { throw .invalidKey(key: key, reason: reason) }
    }
}

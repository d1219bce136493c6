import AppSettings
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("AppSettingsTestHost: \(message)\n".utf8))
    exit(2)
}

/// Writes a line unbuffered, so that a line on stdout is never lost when the process is killed.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// What the domain file holds for `key`, read directly (not through `UserDefaults`), so that a
/// damaged domain, which corelibs silently loads as empty, is told apart from a missing key.
func domainState(of settings: HostSettings) -> String {
    guard let url = settings.settingsStore.domainFileURL else { return "unknown" }
    guard (try? Data(contentsOf: url)) != nil else { return "no-file" }
    guard let dictionary = domainDictionary(of: settings) else { return "damaged" }
    return dictionary[settings.userDefaultsKey] == nil ? "key-missing" : "has-key"
}

/// The domain file's dictionary, read directly; `nil` when there is no file or it is damaged.
func domainDictionary(of settings: HostSettings) -> [String: Any]? {
    guard let url = settings.settingsStore.domainFileURL, let data = try? Data(contentsOf: url) else { return nil }
    return (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Any]
}

/// The app's own keys `seed-others` stores and `others` counts: `plain.<index>`.
func otherValue(_ index: Int) -> String { "the app's own value \(index)" }

/// The backup of unreadable bytes `seed-others` stores under the set's key, and its bytes.
let backupSuffix = ".unreadable-1700000000000"
let backupBytes = Data("bytes a load could not read".utf8)

/// Synchronizes `settings`, or ends the process with the error (`context` says where).
func synchronizeOrFail(_ settings: HostSettings, _ context: String = "") {
    do {
        try settings.synchronizeToUserDefaults()
    } catch {
        fail("synchronize failed\(context): \(error)")
    }
}

/// Converts a property-list value into something `JSONSerialization` accepts.
func jsonValue(_ value: Any) -> Any {
    switch value {
    case let dictionary as [String: Any]: dictionary.mapValues(jsonValue)
    case let array as [Any]: array.map(jsonValue)
    case let data as Data: data.base64EncodedString()
    case let date as Date: date.timeIntervalSince1970
    case is String, is Bool, is Int, is Double, is Float, is NSNumber: value
    default: String(describing: value)
    }
}

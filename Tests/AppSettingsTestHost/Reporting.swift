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
    guard let url = settings.domainFileURL else { return "unknown" }
    guard let data = try? Data(contentsOf: url) else { return "no-file" }
    guard
        let plist = try? PropertyListSerialization.propertyList(from: data, format: nil),
        let dictionary = plist as? [String: Any]
    else {
        return "damaged"
    }
    return dictionary[settings.userDefaultsKey] == nil ? "key-missing" : "has-key"
}

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

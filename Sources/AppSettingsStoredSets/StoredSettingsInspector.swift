import AppSettings
import Foundation

/// Reads stored settings sets as they are, without the app's settings classes: for a debug
/// screen, a support report, or the `appsettings` command-line tool.
///
/// `defaults read` shows a settings set as an opaque `<data>` blob. The inspector reads that blob
/// with the library's own defensive reader (never `NSKeyedUnarchiver`), so damaged bytes are
/// reported, never a trap, and turns it into a dictionary of stored names to values that
/// `JSONSerialization` accepts as it is, in the JSON form of ``AppSettingsObject/jsonRepresentation()``:
/// Booleans as `Bool`, integers as `Int` (`UInt64` above `Int.max`), reals as `Double`, `nil` as
/// `NSNull`, dates as ISO 8601 text, `Data` (and `NSSecureCoding` values) as base64, sets as
/// sorted arrays, non-finite numbers as `"nan"`, `"inf"` or `"-inf"`.
///
/// Keys that begin with `$` are the inspector's own (declared stored names never do):
/// `"$schemaVersion"` is the ``AppSettingsObject/schemaVersion`` the set was stored with, and
/// `"$unreadable"` says why a set, or one of its settings, could not be read, in place of its
/// values.
///
/// ```swift
/// let sets = StoredSettingsInspector.jsonObject(of: UserDefaults.standard)
/// let report = StoredSettingsInspector.jsonText(sets)  // for a debug screen or a support report
/// // {
/// //   "AppSettings.MyAppsSettings" : {
/// //     "$schemaVersion" : 0,
/// //     "soundLevel" : 0.85,
/// //     "theme" : "dark"
/// //   }
/// // }
/// ```
///
/// A settings set is any key that begins with `"AppSettings."` and holds `Data`. Backups of
/// unreadable sets (`"<key>.unreadable-<milliseconds>"`) are such keys too: they are listed as
/// sets of their own, usually with the reason they could not be read.
public enum StoredSettingsInspector {
    /// The key of the inspector's entry that holds a schema version.
    public static let schemaVersionKey = StoredSets.schemaVersionKey
    /// The key of the inspector's entry that says why something could not be read.
    public static let unreadableKey = "$unreadable"

    // MARK: One set

    /// The stored values of one settings set, by stored name, from the bytes stored under its key.
    ///
    /// A setting whose value cannot be read is listed as `["$unreadable": reason]`; the others are
    /// read anyway, as the library loads them.
    ///
    /// ```swift
    /// if let bytes = UserDefaults.standard.data(forKey: "AppSettings.MyAppsSettings") {
    ///     let values = try StoredSettingsInspector.jsonObject(ofArchive: bytes)
    ///     print(values["soundLevel"] ?? "not stored")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - data: The bytes of one settings set (a keyed archive), as stored under its key.
    ///   - key: The key the bytes were stored under, for the error.
    /// - Returns: A dictionary of stored names to JSON-ready values, with `"$schemaVersion"` when
    ///   the set has one.
    /// - Throws: ``AppSettingsError/unreadableArchive(key:settings:reason:)`` (with no setting
    ///   names) when the bytes are not a settings set this version of the library can read.
    public static func jsonObject(ofArchive data: Data, key: String = "") throws(AppSettingsError) -> [String: Any] {
        do {
            return try readSet(data)
        } catch {
            throw .unreadableArchive(key: key, settings: [], reason: error.description)
        }
    }

    // MARK: Every set of a domain

    /// Every settings set in a `UserDefaults`, by key.
    ///
    /// ```swift
    /// let sets = StoredSettingsInspector.jsonObject(of: UserDefaults(suiteName: "group.com.example")!)
    /// ```
    ///
    /// - Parameters:
    ///   - userDefaults: The defaults to read, as they are now (call `synchronize()` first to see
    ///     what another process wrote).
    ///   - key: Only this set: its full key (`"AppSettings.MyAppsSettings"`) or its postfix
    ///     (`"MyAppsSettings"`). `nil` for every set.
    /// - Returns: Each set's key mapped to its values (see ``jsonObject(ofArchive:key:)``) or to
    ///   `["$unreadable": reason]`. Empty when there is no set (or no set under `key`).
    public static func jsonObject(of userDefaults: UserDefaults, key: String? = nil) -> [String: Any] {
        guard let key else { return jsonObject(ofDomain: userDefaults.dictionaryRepresentation()) }
        // One set: read as the app reads it, under the domain's shared lock, so a read never
        // meets another process's write half done.
        for candidate in [key, StoredSets.keyPrefix + key] {
            guard let entry = StoredSets.lockedEntry(userDefaults: userDefaults, key: candidate) else { continue }
            return [candidate: jsonObject(of: entry)]
        }
        return [:]
    }

    /// Every settings set in a domain's dictionary, by key: what `UserDefaults`'
    /// `dictionaryRepresentation()` or `persistentDomain(forName:)` returns, or a domain file
    /// read with `PropertyListSerialization`.
    ///
    /// Keys that begin with `"AppSettings."` but hold something else than `Data` are not settings
    /// sets and are left out, unless `key` names one: it is then listed as unreadable.
    ///
    /// - Parameters:
    ///   - domain: The domain's keys and values.
    ///   - key: Only this set, by its full key or its postfix; `nil` for every set.
    /// - Returns: Each set's key mapped to its values or to `["$unreadable": reason]`.
    public static func jsonObject(ofDomain domain: [String: Any], key: String? = nil) -> [String: Any] {
        var entries: [String: StoredSets.DomainEntry] = [:]
        for (entryKey, value) in domain where entryKey.hasPrefix(StoredSets.keyPrefix) {
            entries[entryKey] = StoredSets.DomainEntry(value)
        }
        return sets(in: entries, key: key)
    }

    // MARK: A file

    /// The settings sets in a file's contents: a domain file (a binary or XML property list, as
    /// kept in `~/Library/Preferences` on macOS and `~/.config` on Linux), one set's archive, or a
    /// Linux recovery copy (`~/.config/AppSettings/<domain>/<key>.archive`, read as the newest of
    /// its two copies), told apart by content.
    ///
    /// ```swift
    /// let contents = try Data(contentsOf: settings.settingsStore.domainFileURL!)
    /// print(StoredSettingsInspector.jsonText(try StoredSettingsInspector.jsonObject(ofFileContents: contents)))
    /// ```
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - key: Only this set, by its full key or its postfix; `nil` for every set. An archive is
    ///     taken to be this set and listed under its full key.
    ///   - archiveName: What an archive is listed under when `key` is `nil`; a command-line tool
    ///     passes the file's name.
    /// - Returns: Each set's key mapped to its values or to `["$unreadable": reason]`.
    /// - Throws: ``AppSettingsError/unreadableArchive(key:settings:reason:)`` when the bytes are
    ///   neither a property list nor a readable archive, or an archive is not a readable settings
    ///   set.
    public static func jsonObject(
        ofFileContents data: Data,
        key: String? = nil,
        archiveName: String = "archive"
    ) throws(AppSettingsError) -> [String: Any] {
        let listedKey = key.map(fullKey) ?? archiveName
        let contents: StoredSets.FileContents
        do {
            contents = try StoredSets.FileContents(data)
        } catch {
            throw .unreadableArchive(key: listedKey, settings: [], reason: error.description)
        }
        switch contents {
        case .archive(let archive):
            return [listedKey: try jsonObject(ofArchive: archive, key: listedKey)]
        case .domain(let entries):
            return sets(in: entries, key: key)
        }
    }

    // MARK: Text

    /// JSON text of what the inspector returns: pretty printed, keys sorted, ending with a newline.
    ///
    /// - Parameter jsonObject: A dictionary made by the inspector (or any JSON-ready dictionary).
    /// - Returns: The text; for a value `JSONSerialization` cannot write, `{}` and the reason on
    ///   the next line (the inspector's own dictionaries are always writable).
    public static func jsonText(_ jsonObject: [String: Any]) -> String {
        // Text for a person to read: a failure loses nothing stored, and is said in the text.
        do {
            return String(decoding: try StoredSets.jsonText(jsonObject), as: UTF8.self)
        } catch {
            return "{}\nnot valid JSON\n"
        }
    }
}

// MARK: - Reading

extension StoredSettingsInspector {
    /// The key `key` names: itself when it has the prefix, else the prefix and it.
    private static func fullKey(_ key: String) -> String {
        key.hasPrefix(StoredSets.keyPrefix) ? key : StoredSets.keyPrefix + key
    }

    private static func sets(in entries: [String: StoredSets.DomainEntry], key: String?) -> [String: Any] {
        if let key {
            // The key as given first: a postfix may itself begin with "AppSettings.".
            for candidate in [key, StoredSets.keyPrefix + key] {
                guard let entry = entries[candidate] else { continue }
                return [candidate: jsonObject(of: entry)]
            }
            return [:]
        }
        var result: [String: Any] = [:]
        for (entryKey, entry) in entries {
            if case .other = entry { continue }
            result[entryKey] = jsonObject(of: entry)
        }
        return result
    }

    private static func jsonObject(of entry: StoredSets.DomainEntry) -> [String: Any] {
        switch entry {
        case .data(let data):
            do {
                return try readSet(data)
            } catch {
                return [unreadableKey: error.description]
            }
        case .other(let typeName):
            return [unreadableKey: "the value is \(typeName), not Data"]
        case .unreadable(let reason):
            return [unreadableKey: reason]
        }
    }

    /// Reads a set as the library loads it: the same reader, the same format check.
    private static func readSet(_ data: Data) throws(ArchiveFormatError) -> [String: Any] {
        let set = try SettingsCodec.readStoredSet(data)
        var result: [String: Any] = set.values.mapValues(StoredSets.jsonValue)
        if let schemaVersion = set.schemaVersion {
            result[schemaVersionKey] = Int(exactly: schemaVersion) ?? schemaVersion
        }
        for (name, reason) in set.unreadable {
            result[name] = [unreadableKey: reason]
        }
        return result
    }
}

// MARK: - The stored set's schema

@_spi(AppSettingsTool)
extension StoredSettingsInspector {
    /// The formats `appsettings schema` prints a stored set's schema in.
    public enum SchemaFormat: String, Sendable {
        /// JSON Schema, draft 2020-12: what ``AppSettingsObject/jsonSchema()`` returns, byte for
        /// byte, for a set stored by this version (see ``schemaNote(ofArchive:key:)`` for older ones).
        case json
        /// The AppConfig community's specification XML, for MDM consoles.
        case appconfig
    }

    /// The schema a stored set carries (saved by an app built with a version of AppSettings that
    /// describes settings), in `format`; `nil` for a set stored before, which carries none.
    ///
    /// - Throws: ``AppSettingsError/unreadableArchive(key:settings:reason:)`` when the bytes are
    ///   not a settings set this version reads.
    public static func schema(
        ofArchive data: Data,
        key: String,
        format: SchemaFormat,
        bundleIdentifier: String = ""
    ) throws(AppSettingsError) -> Data? {
        let set = try storedSetWithSchema(data, key: key)
        return StoredSets.schemaDocument(
            of: set, key: key, asAppConfig: format == .appconfig, bundleIdentifier: bundleIdentifier)
    }

    /// What the schema a stored set carries cannot say, as a sentence: for a set stored by
    /// AppSettings 0.1.0, whose schema has no developer defaults, so that its JSON Schema has no
    /// `default` (and takes its title from the key); `nil` when the schema says all that
    /// ``AppSettingsObject/jsonSchema()`` says, or the set carries none.
    ///
    /// - Throws: ``AppSettingsError/unreadableArchive(key:settings:reason:)`` when the bytes are
    ///   not a settings set this version reads.
    public static func schemaNote(ofArchive data: Data, key: String) throws(AppSettingsError) -> String? {
        StoredSets.schemaNote(of: try storedSetWithSchema(data, key: key))
    }
}

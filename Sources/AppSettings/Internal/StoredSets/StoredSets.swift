import Foundation

/// What the `AppSettingsStoredSets` module (the inspector, the editor, the `appsettings` tool)
/// takes from the library, with `package` access so that an app that imports `AppSettings` sees none.
package enum StoredSets {
    /// What every settings key begins with.
    package static var keyPrefix: String { SettingsKey.prefix }
    /// The key of a JSON document's schema version (`$schemaVersion`).
    package static var schemaVersionKey: String { JSONForm.schemaVersionKey }

    // MARK: JSON

    /// A stored value as `JSONSerialization` writes it (see `JSONForm`).
    package static func jsonValue(_ value: StoredValue) -> Any { JSONForm.jsonValue(value) }

    /// JSON text of a document: pretty printed, keys sorted, ending with a newline.
    package static func jsonText(_ object: [String: Any]) throws -> Data { try JSONForm.documentData(object) }

    /// A document of one set: its `$schemaVersion` and its entries, each of the kind JSON gives it.
    package static func jsonDocument(
        from data: Data,
        key: String
    ) throws(AppSettingsError) -> (schemaVersion: Int?, entries: [String: StoredValue]) {
        let document = try JSONForm.document(from: data, key: key)
        return (document.schemaVersion, document.entries)
    }

    /// A document's entries and `$schemaVersion` as JSON values, read as an import reads them;
    /// numbers as `JSONSerialization` gives them (an integer, or the `Double` nearest it).
    package static func jsonObject(ofDocument data: Data) throws(AppSettingsError) -> [String: Any] {
        let document = try JSONForm.document(from: data, key: "")
        var object = document.entries.mapValues { JSONForm.jsonValue($0.withNumberTextRead) }
        if let version = document.schemaVersion { object[JSONForm.schemaVersionKey] = version }
        return object
    }

    /// The settings whose declaration has a `validate:` rule, by the schema `set` carries.
    package static func settingsCheckedByApp(of set: SettingsCodec.StoredSet) -> [String] {
        set.storedSchema?.properties.values.filter(\.isCheckedByApp).map(\.name).sorted() ?? []
    }

    /// The value JSON text holds (read exactly, as documents are: `JSONReader`); `nil` when the
    /// text is not JSON.
    package static func storedValue(fromJSONText text: String) -> StoredValue? {
        try? JSONReader.value(from: Data(text.utf8))
    }

    /// `value` typed like `template`, the value stored for the same setting (see `JSONForm`);
    /// throws `StoredValueMismatch`.
    package static func storedValue(
        _ value: StoredValue,
        like template: StoredValue,
        merging: Bool,
        strict: Bool
    ) throws -> StoredValue {
        try JSONForm.storedValue(value, like: template, merging: merging, strict: strict)
    }

    // MARK: The stored schema

    /// The schema a stored set carries in its `$schema`, as a JSON Schema or (`asAppConfig`) an
    /// AppConfig specification; `nil` when it carries none.
    package static func schemaDocument(
        of set: SettingsCodec.StoredSet,
        key: String,
        asAppConfig: Bool,
        bundleIdentifier: String
    ) -> Data? {
        guard let schema = set.storedSchema else { return nil }
        // The title is the key's postfix, as in `jsonSchema()`; the class's version where it is not
        // the set's (sets stored by AppSettings 0.1.0 do not say it).
        let title = key.hasPrefix(keyPrefix) ? String(key.dropFirst(keyPrefix.count)) : key
        guard !asAppConfig else {
            return AppConfigSpecification.document(
                properties: schema.sortedProperties, key: key, bundleIdentifier: bundleIdentifier)
        }
        return JSONSchema.document(
            properties: schema.sortedProperties, title: title,
            schemaVersion: schema.schemaVersion ?? set.schemaVersion.flatMap { Int(exactly: $0) })
    }

    /// What the schema a stored set carries cannot say, in a sentence for the tool to print beside
    /// it; `nil` when it says all that `jsonSchema()` does (or the set carries none).
    package static func schemaNote(of set: SettingsCodec.StoredSet) -> String? {
        guard let schema = set.storedSchema, schema.lacksDefaults else { return nil }
        return "the set was stored by AppSettings 0.1.0, whose stored schema has no developer defaults: this "
            + "schema has no \"default\" and its $schemaVersion is the set's "
            + "(the app's next save stores the rest)"
    }

    // MARK: Files and names

    /// The most bytes a document (`import`, `diff`) may have: twice what a domain may hold.
    package static var maximumDocumentByteCount: Int { GuardedFile.maximumDocumentByteCount }
    /// The most bytes a file `dump --file` reads may have: a recovery copy of the largest set.
    package static var maximumFileByteCount: Int { RecoveryCopyFormat.maximumFileByteCount }

    /// Everything `descriptor` gives, refused past `limit` bytes (see `GuardedFile`).
    package static func contents(of descriptor: Int32, named name: String, limit: Int) throws -> Data {
        try GuardedFile.read(descriptor, named: name, limit: limit)
    }

    /// Throws ``AppSettingsError/invalidSuiteName(name:reason:)`` for a suite name the library refuses.
    package static func check(suiteName: String) throws(AppSettingsError) { try StoreNames.check(suiteName: suiteName) }

    /// Throws ``AppSettingsError/invalidKey(key:reason:)`` for a key the library refuses.
    package static func check(key: String) throws(AppSettingsError) { try StoreNames.check(key: key) }
}

import Foundation

// Settings as JSON documents: the inspector's form of one set, written from the object's values
// and read back by each setting's declared type, through the same walk as every load (`fill(fromStored:)`).

extension AppSettingsObject {
    /// The settings as a JSON document: the form `StoredSettingsInspector` (`AppSettingsStoredSets`)
    /// and the `appsettings` tool show a stored set in, for an export, a backup or a support report.
    ///
    /// A JSON object, pretty printed with its keys sorted: `"$schemaVersion"` (this class's
    /// ``schemaVersion``) and each setting by stored name, in the forms <doc:SettingsAsDocuments>
    /// lists; `const` settings and stored settings this class does not declare are never included.
    /// ``update(fromJSON:replacingAll:)`` reads it back.
    ///
    /// ```swift
    /// let document = try MySettings.shared.jsonRepresentation()
    /// // {
    /// //   "$schemaVersion" : 0,
    /// //   "dontDimScreen" : false,
    /// //   "soundLevel" : 0.85,
    /// //   "theme" : "dark"
    /// // }
    /// ```
    ///
    /// - Returns: The document as UTF-8 JSON text, ending with a newline.
    /// - Throws: ``AppSettingsError/encodingFailed(key:setting:reason:)`` for a value that cannot
    ///   be encoded (as synchronizing would), or that has no form in a document of the class's
    ///   ``jsonSchema()``: a `Date` before the year 1 or after 9999 (ISO 8601 text names none).
    public final func jsonRepresentation() throws -> Data {
        let snapshot = ledger.takeSnapshot()
        let encoded = try SettingsCodec(object: self).encodedSettings(snapshot, includingUnknown: false)
        if let problem = SchemaNode.problem(
            with: encoded.mapValues(\.jsonForm), properties: forms.schemaProperties(includingDefaults: false),
            prefix: "")
        {
            throw AppSettingsError.encodingFailed(
                key: userDefaultsKey, setting: problem.path,
                reason: "\(problem.found) has no form in a JSON document (expected \(problem.expected))")
        }
        var document = encoded.mapValues(JSONForm.jsonValue)
        document[JSONForm.schemaVersionKey] = type(of: self).schemaVersion
        do {
            return try JSONForm.documentData(document)
        } catch {
            throw AppSettingsError.encodingFailed(key: userDefaultsKey, setting: "", reason: "\(error)")
        }
    }

    /// Sets the settings a JSON document names to its values, all or nothing.
    ///
    /// The document has the form ``jsonRepresentation()`` writes; it may name only some settings
    /// (a nested settings object only some of its settings). Each value is read by the declared
    /// type of its setting, migrated from an older `"$schemaVersion"` by
    /// ``migrate(_:fromSchemaVersion:)``, passed through its setting's `validate:`, then
    /// ``checkAfterDecode()`` runs (<doc:SettingsAsDocuments> says what each type accepts). The
    /// change is unsaved, like any other, and observers get one notification.
    ///
    /// ```swift
    /// let document = try Data(contentsOf: backupURL)
    /// try MySettings.shared.update(fromJSON: document)        // only the settings it names
    /// try MySettings.shared.synchronizeToUserDefaults()
    /// ```
    ///
    /// - Parameters:
    ///   - data: The document, UTF-8 JSON text.
    ///   - replacingAll: `true` puts every setting the document does not name back to its
    ///     developer default (as ``resetToDeveloperDefaults()`` gives it); `false` (the default)
    ///     leaves them as they are.
    /// - Throws: ``AppSettingsError/malformedJSON(reason:)`` for a document that is not a JSON
    ///   object; ``AppSettingsError/unknownSetting(key:setting:)`` for a name that is no setting
    ///   of this class (a `const` setting included); ``AppSettingsError/invalidJSONValue(setting:expected:found:)``
    ///   for the first value that does not fit its setting (an integer out of its type's range, a
    ///   value outside the setting's `@Setting(in:)` range, a raw value no case has, a string that
    ///   is not a date); ``AppSettingsError/migrationFailed(key:fromSchemaVersion:reason:)``
    ///   when the migration throws. Then nothing has changed.
    public final func update(fromJSON data: Data, replacingAll: Bool = false) throws {
        let document = try JSONForm.document(from: data, key: userDefaultsKey)
        try ledger.replaceValues(copyingValues: !replacingAll, as: .change) { scratch in
            if replacingAll { scratch.resetToDeveloperDefaults() }
            var entries = document.entries
            let version = document.schemaVersion ?? type(of: self).schemaVersion
            if version > type(of: self).schemaVersion || version < 0 {
                throw AppSettingsError.migrationFailed(
                    key: userDefaultsKey, fromSchemaVersion: version,
                    reason: version < 0
                        ? "a schema version is 0 or more"
                        : "the document is of schema version \(version), newer than \(Self.self)'s "
                            + "\(type(of: self).schemaVersion): a later version of the app wrote it, and this one "
                            + "cannot read it")
            }
            if version < type(of: self).schemaVersion {
                entries = try SettingsCodec(object: scratch).migrated(entries, from: version)
            }
            let stored = try scratch.forms.storedEntries(fromJSONForm: entries, key: userDefaultsKey)
            _ = try scratch.ledger.fill(fromStored: stored) { problem in
                throw AppSettingsError.invalidJSONValue(
                    setting: problem.setting,
                    expected: problem.expected,
                    found: SettingsForms.entry(atPath: problem.setting, in: entries).map(JSONForm.description(of:))
                        ?? problem.reason
                )
            }
        }
    }
}

extension SettingsForms {
    /// Reads a document's entries (as JSON gives them) into the stored forms of this unpublished
    /// object's settings, by their declared types; nested settings objects are read in place.
    /// Throws naming the first entry, in sorted order, that names no setting or does not fit.
    func storedEntries(
        fromJSONForm entries: [String: StoredValue],
        key: String,
        path: String = ""
    ) throws -> [String: StoredValue] {
        var slotsByName: [String: AnySettingSlot] = [:]
        for slot in slots where !slot.isConstant { slotsByName[slot.name] = slot }
        var result: [String: StoredValue] = [:]
        for (name, value) in entries.sorted(by: { $0.key < $1.key }) {
            guard let slot = slotsByName[name] else {
                throw AppSettingsError.unknownSetting(key: key, setting: path + name)
            }
            if let nested = slot.nestedObject {
                guard case .dictionary(let nestedEntries) = value else {
                    // In the words of the schema (`SchemaNode.expectedText`), as the tool says it.
                    throw AppSettingsError.invalidJSONValue(
                        setting: path + name, expected: SchemaNode.object([]).expectedText,
                        found: JSONForm.description(of: value))
                }
                result[name] = .dictionary(
                    try nested.forms.storedEntries(fromJSONForm: nestedEntries, key: key, path: path + name + "."))
                continue
            }
            // What the setting's type and range accept, by the one definition the schema is
            // written from: a value outside it is refused before any conversion could round it.
            let property = SchemaProperty(name: name, node: slot.schemaNode, range: slot.rules.range)
            if let problem = property.problem(with: value, path: path + name) { throw problem.error(key: key) }
            let stored: StoredValue
            do {
                stored = try slot.storedValue(fromJSONForm: value)
            } catch {
                throw AppSettingsError.invalidJSONValue(
                    setting: path + name, expected: slot.valueTypeName, found: JSONForm.description(of: value))
            }
            // A value outside `@Setting(in:)` is refused, not clamped: a document says what it means.
            if let expected = slot.rangeProblem(of: stored) {
                throw AppSettingsError.invalidJSONValue(
                    setting: path + name, expected: expected, found: JSONForm.description(of: value))
            }
            result[name] = stored
        }
        return result
    }

    /// The entry at a dotted setting path (`audio.volume`) of a document's nested objects.
    static func entry(atPath path: String, in entries: [String: StoredValue]) -> StoredValue? {
        var current = StoredValue.dictionary(entries)
        for component in path.split(separator: ".") {
            guard case .dictionary(let values) = current, let value = values[String(component)] else { return nil }
            current = value
        }
        return current
    }
}

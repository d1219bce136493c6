import Foundation

extension StoredSets {
    /// The `Settings.bundle` files of a stored set, made from the schema it carries (`$schema`,
    /// with what each shown setting's element needs): the page and its `Root.strings`, those the
    /// app's class makes (`AppSettingsObject.settingsBundlePage()`, `settingsBundleStrings()`),
    /// byte for byte. `nil` when the set carries no schema this version reads.
    package static func settingsBundle(of set: SettingsCodec.StoredSet, key: String, appGroup: String?)
        -> (page: Data, strings: Data)?
    {
        guard let schema = set.storedSchema else { return nil }
        let items = SettingsBundlePage.items(
            postfix: SettingsKey(storedKey: key).postfix, properties: schema.sortedProperties)
        return (SettingsBundlePage.document(items: items, appGroup: appGroup), SettingsBundlePage.strings(items: items))
    }
}

extension ShownKeys {
    /// The keys of the settings a stored set's `schema` says are shown (the tool's edits judge and
    /// write them as the app does; none without a schema).
    init(schema: StoredSchema?, key: String) {
        let settingsKey = SettingsKey(postfix: SettingsKey(storedKey: key).postfix)
        self.init(
            keys: (schema?.sortedProperties ?? []).compactMap { property in
                guard let entry = property.settingsApp,
                    let control = SettingsAppControl(node: property.node, range: property.range, entry: entry)
                else { return nil }
                return Key(name: property.name, key: settingsKey.settingsAppKey(of: property.name), control: control)
            })
    }

    /// The keys a removal of `set` takes away: those its record says were written, and those its
    /// schema shows.
    static func keys(of set: SettingsCodec.StoredSet, key: String) -> [String] {
        let settingsKey = SettingsKey(postfix: SettingsKey(storedKey: key).postfix)
        var names = Set(ShownKeys(schema: set.storedSchema, key: key).keys.map(\.name))
        if case .dictionary(let record)? = set.records[ArchiveFormat.shownBaseField] { names.formUnion(record.keys) }
        return names.sorted().map(settingsKey.settingsAppKey(of:))
    }
}

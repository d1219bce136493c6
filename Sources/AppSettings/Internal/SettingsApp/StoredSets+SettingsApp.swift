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

extension SettingsBundlePage {
    /// What the tool's edit writes under the keys of the settings `schema` says are shown: the
    /// values of `entries` (stored forms), as the app's save writes them.
    static func shownValues(of entries: [String: StoredValue], schema: StoredSchema?, key: String) -> [String: Any] {
        guard let schema else { return [:] }
        let postfix = SettingsKey(storedKey: key).postfix
        var values: [String: Any] = [:]
        for property in schema.properties.values {
            guard let entry = property.settingsApp, let stored = entries[property.name],
                let control = SettingsAppControl(node: property.node, range: property.range, entry: entry),
                let value = control.settingsAppValue(of: stored.jsonForm)
            else { continue }
            values[SettingsKey(postfix: postfix).settingsAppKey(of: property.name)] = value
        }
        return values
    }
}

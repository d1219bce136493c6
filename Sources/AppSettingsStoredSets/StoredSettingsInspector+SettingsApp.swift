import AppSettings
import Foundation

// MARK: - The stored set's Settings app page

@_spi(AppSettingsTool)
extension StoredSettingsInspector {
    /// The `Settings.bundle` files of the settings a stored set shows in the system Settings app
    /// (`@Setting(inSettingsApp: true)`), made from the schema the set carries: the page
    /// (`Root.plist`) and its titles (`en.lproj/Root.strings`) that
    /// `AppSettingsObject.settingsBundlePage()` and `settingsBundleStrings()` make in the app, byte
    /// for byte; `nil` for a set stored by a version that carries no schema.
    ///
    /// - Parameters:
    ///   - data: The stored archive.
    ///   - key: The set's key (`AppSettings.MySettings`): the page's keys begin with its postfix.
    ///   - appGroup: The App Group the page names in `ApplicationGroupContainerIdentifier`, if any.
    /// - Throws: ``AppSettingsError/unreadableArchive(key:settings:reason:)`` when the bytes are
    ///   not a settings set this version reads.
    public static func settingsBundle(
        ofArchive data: Data,
        key: String,
        appGroup: String? = nil
    ) throws(AppSettingsError) -> (page: Data, strings: Data)? {
        StoredSets.settingsBundle(of: try storedSetWithSchema(data, key: key), key: key, appGroup: appGroup)
    }
}

@_spi(AppSettingsTool)
extension StoredSettingsInspector {
    /// The settings of a stored set whose declaration has a `validate:` rule, which only the app
    /// runs (the schema the set carries says so; none for a set without one): a value the tool
    /// stores for one may be changed at the app's next load.
    public static func settingsCheckedByApp(ofArchive data: Data, key: String) throws(AppSettingsError) -> [String] {
        StoredSets.settingsCheckedByApp(of: try storedSetWithSchema(data, key: key))
    }
}

extension StoredSettingsInspector {
    /// A stored set with its `$schema`; unreadable bytes are ``AppSettingsError/unreadableArchive(key:settings:reason:)``.
    static func storedSetWithSchema(_ data: Data, key: String) throws(AppSettingsError) -> SettingsCodec.StoredSet {
        do {
            return try SettingsCodec.readStoredSet(data, readingSchema: true)
        } catch {
            throw .unreadableArchive(key: key, settings: [], reason: error.description)
        }
    }
}

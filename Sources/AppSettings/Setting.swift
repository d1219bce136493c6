import Foundation

/// Declares a stored setting on an ``AppSettingsObject`` subclass.
///
/// The initial value is the setting's developer default. Reads and writes are thread-safe,
/// observable, and mark the settings set as changed; nothing is written to `UserDefaults` until
/// ``AppSettingsObject/synchronizeToUserDefaults()``.
///
/// ```swift
/// final class MySettings: AppSettingsObject, @unchecked Sendable {
///     @Setting var dontDimScreen = false
///     @Setting(validate: { min(max($0, 0), 1) }) var soundLevel: Float = 0.7
///     @Setting("volume") var loudness = 3          // stored as "volume": a rename keeps the value
/// }
/// ```
///
/// Validate in `validate:`, not in `didSet`: a property with a property wrapper that assigns to
/// itself in its own `didSet` recurses until the stack overflows. `validate` runs on every
/// assignment and on every load, so a stored value that a newer rule forbids is repaired.
///
/// A setting whose property name starts with `const` followed by an uppercase letter, a digit or
/// `_` (`constLastSeenBuild`) is never stored, loaded, listed or exported.
@propertyWrapper
public struct Setting<Value: SettingValue> {
    @usableFromInline let slot: SettingSlot<Value>

    /// Declares a setting whose developer default is `wrappedValue`.
    ///
    /// - Parameters:
    ///   - wrappedValue: The developer default.
    ///   - storedName: The name the value is stored and exported under; by default the property's
    ///     name. Give the old name here to rename a property without losing what users stored.
    ///   - legacyKey: The `UserDefaults` key this value was kept under before the app adopted
    ///     AppSettings (`@AppStorage("sound_level")`, Defaults, `set(_:forKey:)`). While the set
    ///     has never been stored, a value under that key in the same `UserDefaults` is loaded
    ///     instead of the developer default (converted as ``AppSettingsObject/update(from:)``
    ///     converts, then validated); once the set is stored, the key is never read again.
    ///   - syncs: Whether the setting follows the user to their other devices through iCloud's
    ///     key-value store, once the object ``AppSettingsObject/startSyncing(with:)``; other
    ///     settings never leave the device. See <doc:SyncingAcrossDevices>.
    ///   - validate: Called with every value assigned or loaded; what it returns is kept. Use it
    ///     for range checks: `validate: { min(max($0, 0), 1) }`.
    public init(
        wrappedValue: Value,
        _ storedName: String? = nil,
        legacyKey: String? = nil,
        syncs: Bool = false,
        validate: (@Sendable (Value) -> Value)? = nil
    ) {
        let initialValue = validate?(wrappedValue) ?? wrappedValue
        slot = SettingSlot(
            initialValue: initialValue, storedName: storedName, legacyKey: legacyKey, syncs: syncs, validate: validate)
        SlotRegistration.push(slot)
    }

    /// Not available: `@Setting` is for properties of ``AppSettingsObject`` subclasses only.
    @available(*, unavailable, message: "@Setting can only be used on properties of AppSettingsObject subclasses")
    public var wrappedValue: Value {
        get { slot.initialValue }
        // swift-format-ignore: NoEmptyBody
        set {}
    }

    /// Reads and writes the setting through its settings object, under the object's lock.
    @inlinable
    public static subscript<Owner: AppSettingsObject>(
        _enclosingInstance owner: Owner,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Owner, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Owner, Self>
    ) -> Value {
        get { owner._readSetting(owner[keyPath: storageKeyPath].slot) }
        set { owner._writeSetting(owner[keyPath: storageKeyPath].slot, newValue) }
    }
}

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
    ///   - validate: Called with every value assigned or loaded; what it returns is kept. For a
    ///     range, prefer `in:` (``init(wrappedValue:_:legacyKey:syncs:in:description:validate:)-(Value,_,_,_,_,_,_)``),
    ///     which the JSON Schema, the `appsettings` tool and overrides know too.
    public init(
        wrappedValue: Value,
        _ storedName: String? = nil,
        legacyKey: String? = nil,
        syncs: Bool = false,
        validate: (@Sendable (Value) -> Value)? = nil
    ) {
        self.init(
            declared: wrappedValue, storedName, legacyKey: legacyKey, syncs: syncs, rules: validate,
            schema: SettingRules(checkedByApp: validate != nil))
    }

    /// Declares a setting with a description, for its JSON Schema and managed-configuration spec.
    ///
    /// ```swift
    /// @Setting(description: "Appearance") var theme = Theme.light
    /// ```
    ///
    /// - Parameters:
    ///   - wrappedValue: The developer default.
    ///   - storedName: The name the value is stored and exported under (see
    ///     ``init(wrappedValue:_:legacyKey:syncs:validate:)``).
    ///   - legacyKey: The key of per-key storage this value was kept under before AppSettings.
    ///   - syncs: Whether the setting follows the user to their other devices through iCloud.
    ///   - description: A human text: what the setting does, for ``AppSettingsObject/jsonSchema()``,
    ///     `appsettings schema` and the managed-configuration spec an administrator imports.
    ///   - validate: Called with every value assigned or loaded; what it returns is kept.
    public init(
        wrappedValue: Value,
        _ storedName: String? = nil,
        legacyKey: String? = nil,
        syncs: Bool = false,
        description: String,
        validate: (@Sendable (Value) -> Value)? = nil
    ) {
        self.init(
            declared: wrappedValue, storedName, legacyKey: legacyKey, syncs: syncs, rules: validate,
            schema: SettingRules(description: description, checkedByApp: validate != nil))
    }

    /// Declares a setting whose value always lies in `range`.
    ///
    /// ```swift
    /// @Setting(in: 0...1, description: "Volume of sound effects") var soundLevel: Float = 0.7
    /// @Setting(in: 1...10) var retries = 3
    /// ```
    ///
    /// An assignment or a load clamps the value into the range, before `validate` runs. An
    /// override (a launch argument, an environment variable, managed configuration) outside it
    /// is ignored and listed in ``AppSettingsObject/ignoredOverrides``;
    /// ``AppSettingsObject/update(fromJSON:replacingAll:)`` and the `appsettings` tool refuse a
    /// value outside it, naming the range. The range is the setting's `minimum` and `maximum` in
    /// ``AppSettingsObject/jsonSchema()``.
    ///
    /// - Parameters:
    ///   - wrappedValue: The developer default, clamped into `range` too.
    ///   - storedName: The name the value is stored and exported under (see
    ///     ``init(wrappedValue:_:legacyKey:syncs:validate:)``).
    ///   - legacyKey: The key of per-key storage this value was kept under before AppSettings.
    ///   - syncs: Whether the setting follows the user to their other devices through iCloud.
    ///   - range: The values the setting may hold (integers, `Float`, `Double`, `Date`).
    ///   - description: A human text (see ``init(wrappedValue:_:legacyKey:syncs:description:validate:)``).
    ///   - validate: Called with every value assigned or loaded, after clamping; what it returns is
    ///     kept. Keep it inside `range`: the schema describes the range.
    public init(
        wrappedValue: Value,
        _ storedName: String? = nil,
        legacyKey: String? = nil,
        syncs: Bool = false,
        in range: ClosedRange<Value>,
        description: String? = nil,
        validate: (@Sendable (Value) -> Value)? = nil
    ) where Value: RangedSettingValue {
        self.init(
            declared: wrappedValue, storedName, legacyKey: legacyKey, syncs: syncs,
            rules: clamping(then: validate) { range.clamping($0) }, isInRange: { range.contains($0) },
            schema: SettingRules(
                range: Value.schemaRange(range), description: description, checkedByApp: validate != nil))
    }

    /// Declares an optional setting whose value, when there is one, always lies in `range`.
    ///
    /// ```swift
    /// @Setting(in: 1...100) var pageLimit: Int? = nil
    /// ```
    ///
    /// `nil` stays `nil`; any other value is treated as in
    /// ``init(wrappedValue:_:legacyKey:syncs:in:description:validate:)-(Value,_,_,_,_,_,_)``.
    ///
    /// - Parameters:
    ///   - wrappedValue: The developer default, clamped into `range` unless `nil`.
    ///   - storedName: The name the value is stored and exported under (see
    ///     ``init(wrappedValue:_:legacyKey:syncs:validate:)``).
    ///   - legacyKey: The key of per-key storage this value was kept under before AppSettings.
    ///   - syncs: Whether the setting follows the user to their other devices through iCloud.
    ///   - range: The values the setting may hold besides `nil`.
    ///   - description: A human text (see ``init(wrappedValue:_:legacyKey:syncs:description:validate:)``).
    ///   - validate: Called with every value assigned or loaded, after clamping; what it returns is kept.
    public init<Bound: RangedSettingValue>(
        wrappedValue: Bound?,
        _ storedName: String? = nil,
        legacyKey: String? = nil,
        syncs: Bool = false,
        in range: ClosedRange<Bound>,
        description: String? = nil,
        validate: (@Sendable (Bound?) -> Bound?)? = nil
    ) where Value == Bound? {
        self.init(
            declared: wrappedValue, storedName, legacyKey: legacyKey, syncs: syncs,
            rules: clamping(then: validate) { $0.map { range.clamping($0) } },
            isInRange: { $0.map { range.contains($0) } ?? true },
            schema: SettingRules(
                range: Bound.schemaRange(range), description: description, checkedByApp: validate != nil))
    }

    /// Where every initializer ends: the slot, holding the declared value passed through the
    /// setting's rules, registered with the object being initialized.
    init(
        declared wrappedValue: Value,
        _ storedName: String?,
        legacyKey: String?,
        syncs: Bool,
        rules: (@Sendable (Value) -> Value)?,
        isInRange: (@Sendable (Value) -> Bool)? = nil,
        schema: SettingRules = .none
    ) {
        slot = SettingSlot(
            initialValue: rules?(wrappedValue) ?? wrappedValue, storedName: storedName, legacyKey: legacyKey,
            syncs: syncs, validate: rules, isInRange: isInRange, rules: schema)
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

/// A setting type whose values a range can bound in `@Setting(in:)`: the integers, `Float`,
/// `Double` and `Date`.
///
/// The JSON Schema, the managed-configuration specification and the `appsettings` tool describe
/// and check a range of numbers or dates only: the library's own conformances are the ones
/// supported.
public protocol RangedSettingValue: SettingValue, Comparable, Sendable {}

extension RangedSettingValue {
    /// The range's bounds in their JSON form.
    static func schemaRange(_ range: ClosedRange<Self>) -> SchemaRange? {
        guard let lower = try? settingWitness.storedValue(of: range.lowerBound),
            let upper = try? settingWitness.storedValue(of: range.upperBound)
        else { return nil }  // the built-in ranged types always encode
        return SchemaRange(lowerBound: lower.jsonForm, upperBound: upper.jsonForm)
    }
}

extension Int: RangedSettingValue {}
extension Int8: RangedSettingValue {}
extension Int16: RangedSettingValue {}
extension Int32: RangedSettingValue {}
extension Int64: RangedSettingValue {}
extension UInt: RangedSettingValue {}
extension UInt8: RangedSettingValue {}
extension UInt16: RangedSettingValue {}
extension UInt32: RangedSettingValue {}
extension UInt64: RangedSettingValue {}
extension Float: RangedSettingValue {}
extension Double: RangedSettingValue {}
extension Date: RangedSettingValue {}

extension ClosedRange {
    /// `value`, or the bound it is beyond; a value that compares with neither bound (NaN) gets
    /// the lower one.
    func clamping(_ value: Bound) -> Bound {
        if contains(value) { return value }
        return value > upperBound ? upperBound : lowerBound
    }
}

/// `clamp`, then `validate` when there is one: the rules of a setting declared with `in:`.
func clamping<Value>(
    then validate: (@Sendable (Value) -> Value)?,
    _ clamp: @escaping @Sendable (Value) -> Value
) -> @Sendable (Value) -> Value {
    guard let validate else { return clamp }
    return { validate(clamp($0)) }
}

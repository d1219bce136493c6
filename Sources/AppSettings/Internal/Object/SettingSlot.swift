import Foundation

/// One setting of one settings object: its value and what is needed to store it.
///
/// `value` is guarded by the owning object's lock; every other property is set before the
/// object is published and never changes after.
@usableFromInline
class AnySettingSlot: @unchecked Sendable {
    /// The name stored, exported and listed: the explicit stored name or the property name.
    final var name = ""
    /// The `userInfo` of a notification for a change of this setting alone, made once per class.
    final var changeUserInfo: [AnyHashable: Any] = [:]
    /// Whether the `const` rule keeps this setting out of storage.
    @usableFromInline final var isConstant = false
    /// Whether the value is the developer default it was created with (never assigned since, or
    /// reset): a fresh object's reset to developer defaults skips these slots.
    @usableFromInline final var holdsInitialValue = true
    /// The position in the owner's declaration order.
    @usableFromInline final var index = 0
    /// What Observation tracks for this setting.
    @usableFromInline final var observationKeyPath: KeyPath<AppSettingsObject, Int> = ObservationKeys.placeholder
    final let explicitStoredName: String?
    /// The key a per-key library stored this setting under before the app adopted AppSettings.
    final let legacyKey: String?
    /// Whether the setting is synced through a cloud key-value store (`@Setting(syncs: true)`).
    final let syncs: Bool
    /// Whether the value type is a settings object (a nested one), known without a cast.
    final let holdsSettingsObject: Bool

    init(explicitStoredName: String?, legacyKey: String?, syncs: Bool, holdsSettingsObject: Bool) {
        self.explicitStoredName = explicitStoredName
        self.legacyKey = legacyKey
        self.syncs = syncs
        self.holdsSettingsObject = holdsSettingsObject
    }

    // The members below are overridden by `SettingSlot`; all but `decode` run under the owner's lock.

    /// The stored form of a value taken from `anyValue`.
    func storedValue(of value: Any) throws -> _StoredValue { .null }
    /// Converts and validates a stored value; the result is passed to `assign`. Runs unlocked.
    func decode(_ stored: _StoredValue) throws -> Any { () }
    /// Reads a value as JSON gives it into the stored form of the setting's type. Runs unlocked.
    func storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue { value }
    /// The validated developer default, ready for `assign`.
    func initialValueForAssignment() -> Any { () }
    /// Assigns what `decode` or `initialValueForAssignment` returned; tells whether it changed anything.
    func assign(_ value: Any) -> Bool { false }
    /// Assigns what `decode` returned without comparing: for objects nobody else sees yet.
    func store(_ value: Any) {}
    /// The current value, as `Any`.
    var anyValue: Any { () }
    /// The settings object the value is, when it is a nested one.
    var nestedObject: AppSettingsObject? { nil }
    /// Whether this slot holds `value` (one taken from `anyValue` of a slot of the same type).
    func hasSameValue(as value: Any) -> Bool { false }
    /// The value as text, for `description`.
    var valueDescription: String { "" }
    /// The Swift type of the value, for messages.
    var valueTypeName: String { "" }
}

/// The slot of a setting whose value has type `Value`.
@usableFromInline
final class SettingSlot<Value: SettingValue>: AnySettingSlot, @unchecked Sendable {
    /// The value, behind a pointer so that accesses skip the run-time exclusivity checks of a
    /// class's stored `var` (the owner's lock already excludes).
    @usableFromInline let storage: UnsafeMutablePointer<Value>
    let initialValue: Value
    @usableFromInline let validate: (@Sendable (Value) -> Value)?

    init(
        initialValue: Value,
        storedName: String?,
        legacyKey: String?,
        syncs: Bool,
        validate: (@Sendable (Value) -> Value)?
    ) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: initialValue)
        self.initialValue = initialValue
        self.validate = validate
        super.init(
            explicitStoredName: storedName,
            legacyKey: legacyKey,
            syncs: syncs,
            holdsSettingsObject: Value.self is AppSettingsObject.Type
        )
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// The current value; read and written only under the owner's lock.
    @inlinable var value: Value {
        get { storage.pointee }
        set {
            storage.pointee = newValue
            holdsInitialValue = false
        }
    }

    override func storedValue(of value: Any) throws -> _StoredValue {
        guard let value = value as? Value else {
            throw _StoredValueMismatch(expected: Value.self, foundDescription: foundTypeName(of: value))
        }
        return try Value._storedValue(of: value)
    }

    override func decode(_ stored: _StoredValue) throws -> Any {
        let decoded = try Value._value(from: stored)
        return validate?(decoded) ?? decoded
    }

    override func storedValue(fromJSONForm value: _StoredValue) throws -> _StoredValue {
        try Value._storedValue(fromJSONForm: value)
    }

    override func initialValueForAssignment() -> Any { initialValue }

    override func assign(_ newValue: Any) -> Bool {
        guard let newValue = newValue as? Value, !Value._isSameSettingValue(value, newValue) else { return false }
        value = newValue
        return true
    }

    override func store(_ newValue: Any) {
        if let newValue = newValue as? Value { value = newValue }
    }

    override var anyValue: Any { value }

    override var nestedObject: AppSettingsObject? { holdsSettingsObject ? value as? AppSettingsObject : nil }

    override func hasSameValue(as other: Any) -> Bool {
        guard let other = other as? Value else { return false }
        return Value._isSameSettingValue(value, other)
    }

    override var valueDescription: String { String(describing: value) }

    override var valueTypeName: String { String(describing: Value.self) }
}

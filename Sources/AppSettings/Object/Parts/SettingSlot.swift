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
    /// Whether the setting is synced across the devices of an account (`@Setting(syncs: true)`).
    final let syncs: Bool
    /// Whether the value type is a settings object (a nested one), known without a cast.
    final let holdsSettingsObject: Bool
    /// Where the value readers see comes from while an override (a launch argument, an
    /// environment variable, managed configuration) holds the setting; `nil` otherwise. Guarded
    /// by the owner's lock.
    final var overrideSource: SettingSource?
    /// The rules `@Setting(in:description:)` declared: the range (in its JSON form) and the text.
    final let rules: SettingRules

    init(explicitStoredName: String?, legacyKey: String?, syncs: Bool, holdsSettingsObject: Bool, rules: SettingRules) {
        self.explicitStoredName = explicitStoredName
        self.legacyKey = legacyKey
        self.syncs = syncs
        self.holdsSettingsObject = holdsSettingsObject
        self.rules = rules
    }

    // The members below are overridden by `SettingSlot`; all but `decode` run under the owner's lock.

    /// The stored form of a value taken from `anyValue`.
    func storedValue(of value: Any) throws -> StoredValue { .null }
    /// Converts and validates a stored value; the value is passed to `assign`, and `repaired`
    /// tells whether `validate:` changed it (a repair a load must save). Runs unlocked.
    func decode(_ stored: StoredValue) throws -> (value: Any, repaired: Bool) { ((), false) }
    /// Reads a value as JSON gives it into the stored form of the setting's type. Runs unlocked.
    func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue { value }
    /// The validated developer default, ready for `assign`.
    func initialValueForAssignment() -> Any { () }
    /// Assigns what `decode` or `initialValueForAssignment` returned; tells whether it changed anything.
    func assign(_ value: Any) -> Bool { false }
    /// Assigns what `decode` returned without comparing: for objects nobody else sees yet.
    func assignWithoutComparing(_ value: Any) {}
    /// The current value, as `Any`.
    var anyValue: Any { () }
    /// The slot of `wrapper` when it is a `Setting` of this slot's type (no cast to a protocol).
    func slot(ofWrapper wrapper: Any) -> AnySettingSlot? { nil }
    /// The settings object the value is, when it is a nested one.
    var nestedObject: AppSettingsObject? { nil }
    /// Whether this slot holds `value` (one taken from `anyValue` of a slot of the same type).
    func hasSameValue(as value: Any) -> Bool { false }
    /// The value as text, for `description`.
    var valueDescription: String { "" }
    /// Converts and validates the value of an override; the result is passed to `setOverride`.
    /// Runs unlocked.
    func overrideValue(from stored: StoredValue) throws -> Any { () }
    /// Makes readers see `value` (what `overrideValue` returned) instead of the user's value, which
    /// is kept; tells whether what readers see changed.
    func setOverride(_ value: Any, source: SettingSource) -> Bool { false }
    /// Makes readers see the user's value again; tells whether what readers see changed.
    func removeOverride() -> Bool { false }
    /// The Swift type of the value, for messages.
    var valueTypeName: String { "" }
    /// The form of the value in a JSON document (a nested settings object's is made from the object).
    var schemaNode: SchemaNode { .any }
    /// The value in its stored form, read without the owner's lock: for an object nobody else
    /// sees (one holding its developer defaults, `SettingsForms.developerDefaults()`); `nil` when
    /// it has none (a nested settings object, a value that cannot be encoded).
    var storedForm: StoredValue? { nil }
    /// Why a stored value (of the setting's type) is outside the declared range; `nil` when it is
    /// inside or there is none. Runs unlocked.
    func rangeProblem(of stored: StoredValue) -> String? { nil }
}

/// What `@Setting(in:description:)` declares beside the value.
struct SettingRules: Sendable {
    /// The bounds of `in:`, in their JSON form.
    var range: SchemaRange?
    var description: String?
    /// What `@Setting(inSettingsApp: true)` declares (`Setting+SettingsApp.swift`); `nil` when not shown.
    var settingsApp: SettingsAppEntry?
    /// Whether the declaration has a `validate:` rule, which only the app runs.
    var checkedByApp = false

    static let none = SettingRules()
}

/// The slot of a setting whose value has type `Value`.
@usableFromInline
final class SettingSlot<Value: SettingValue>: AnySettingSlot, @unchecked Sendable {
    /// The value readers see, behind a pointer so that accesses skip the run-time exclusivity
    /// checks of a class's stored `var` (the owner's lock already excludes). It is the user's
    /// value, except while an override holds the setting.
    @usableFromInline let storage: UnsafeMutablePointer<Value>
    /// The user's value while an override holds the setting (`storage` then holds the
    /// override's), `nil` otherwise: what is saved, compared, copied and exported.
    @usableFromInline final var overriddenUserValue: UnsafeMutablePointer<Value>?
    let initialValue: Value
    /// The declared range's clamping, then the app's `validate:`: what every assignment and load
    /// runs.
    @usableFromInline let validate: (@Sendable (Value) -> Value)?
    /// Whether a value lies in the declared range (`@Setting(in:)`); `nil` without one.
    let isInRange: (@Sendable (Value) -> Bool)?
    /// How `Value` is stored, compared and read: its `settingRepresentation`'s witness, fetched
    /// once here so that every conversion is one call.
    @usableFromInline let witness: SettingWitness<Value>

    init(
        initialValue: Value,
        storedName: String?,
        legacyKey: String?,
        syncs: Bool,
        validate: (@Sendable (Value) -> Value)?,
        isInRange: (@Sendable (Value) -> Bool)? = nil,
        rules: SettingRules = .none
    ) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: initialValue)
        self.initialValue = initialValue
        self.validate = validate
        self.isInRange = isInRange
        witness = Value.settingWitness
        super.init(
            explicitStoredName: storedName,
            legacyKey: legacyKey,
            syncs: syncs,
            holdsSettingsObject: Value.self is AppSettingsObject.Type,
            rules: rules
        )
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
        if let overriddenUserValue {
            overriddenUserValue.deinitialize(count: 1)
            overriddenUserValue.deallocate()
        }
    }

    /// The user's value (what is saved); read and written only under the owner's lock.
    @inlinable var value: Value {
        get { overriddenUserValue?.pointee ?? storage.pointee }
        set {
            if let overriddenUserValue {
                overriddenUserValue.pointee = newValue
            } else {
                storage.pointee = newValue
            }
            holdsInitialValue = false
        }
    }

    /// The value readers see: the user's value, or an override's; read only under the owner's lock.
    @inlinable var visibleValue: Value { storage.pointee }

    override func storedValue(of value: Any) throws -> StoredValue {
        guard let value = value as? Value else {
            throw StoredValueMismatch(expected: Value.self, foundDescription: foundTypeName(of: value))
        }
        return try witness.storedValue(of: value)
    }

    override func decode(_ stored: StoredValue) throws -> (value: Any, repaired: Bool) {
        let decoded = try witness.value(from: stored)
        guard let validate else { return (decoded, false) }
        let validated = validate(decoded)
        return (validated, !witness.isSame(decoded, validated))
    }

    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        try witness.storedValue(fromJSONForm: value)
    }

    override func initialValueForAssignment() -> Any { initialValue }

    override func assign(_ newValue: Any) -> Bool {
        guard let newValue = newValue as? Value, !witness.isSame(value, newValue) else { return false }
        value = newValue
        return true
    }

    override func assignWithoutComparing(_ newValue: Any) {
        if let newValue = newValue as? Value { value = newValue }
    }

    override var anyValue: Any { value }
    override func slot(ofWrapper wrapper: Any) -> AnySettingSlot? {
        type(of: wrapper) == Setting<Value>.self ? (wrapper as? Setting<Value>)?.slot : nil
    }

    override var nestedObject: AppSettingsObject? { holdsSettingsObject ? value as? AppSettingsObject : nil }

    override func hasSameValue(as other: Any) -> Bool {
        guard let other = other as? Value else { return false }
        return witness.isSame(value, other)
    }

    override var valueDescription: String { String(describing: value) }

    override var valueTypeName: String { String(describing: Value.self) }

    override func overrideValue(from stored: StoredValue) throws -> Any {
        // Refused in the words a document's refusal uses, what the declaration accepts (its
        // range, choices, form: `SchemaProperty.expectedText`); the record of the ignored
        // override names the value. A type the schema does not describe keeps its own words.
        let property = SchemaProperty(name: name, node: schemaNode, range: rules.range)
        let refusal = StoredValueMismatch(expectedDescription: property.expectedText, foundDescription: "")
        let parsed: Value
        do {
            parsed = try witness.overrideValue(from: stored)
        } catch let mismatch as StoredValueMismatch {
            guard property.node.isDescribed else { throw mismatch }
            throw refusal
        }
        // The number as given, before the type rounds it (`1.00000001` is no `Float` in 0...1);
        // then the value (NaN lies in no range). An override is an administrator's or a tester's
        // statement: one outside the range is refused (and listed), not clamped into something
        // nobody asked for.
        if let range = rules.range, let number = Self.number(in: stored), range.contains(number) == false {
            throw refusal
        }
        if let isInRange, !isInRange(parsed) { throw refusal }
        return validate?(parsed) ?? parsed
    }

    /// The number an override gives, as given: a stored number, or text that reads as one.
    private static func number(in stored: StoredValue) -> StoredValue? {
        switch stored {
        case .integer, .unsignedInteger, .double, .numberText: return stored
        case .float(let value): return .double(Double(value))
        case .string(let text):
            let trimmed = OverrideText.trimmed(text)
            guard TextForms.realNumber(fromText: trimmed)?.isFinite == true else { return nil }
            return .numberText(trimmed)
        default: return nil
        }
    }

    override var schemaNode: SchemaNode { witness.schemaNode(describing: initialValue) }

    override var storedForm: StoredValue? {
        guard !holdsSettingsObject, let stored = try? witness.storedValue(of: value) else {
            // A value that cannot be encoded (an NSSecureCoding class of Apple's frameworks) has
            // no default to show; saving it throws, naming the setting.
            return nil
        }
        return stored
    }

    override func rangeProblem(of stored: StoredValue) -> String? {
        guard let isInRange, let range = rules.range, let value = try? witness.value(from: stored) else {
            // Without a range there is nothing to check; a value that does not convert is
            // refused by the conversion itself, with its own message.
            return nil
        }
        return isInRange(value) ? nil : "\(valueTypeName) in \(range.text)"
    }

    override func setOverride(_ newValue: Any, source: SettingSource) -> Bool {
        guard let newValue = newValue as? Value else { return false }
        overrideSource = source
        if overriddenUserValue == nil {
            let user = UnsafeMutablePointer<Value>.allocate(capacity: 1)
            user.moveInitialize(from: storage, count: 1)
            storage.initialize(to: newValue)
            overriddenUserValue = user
            return !witness.isSame(user.pointee, newValue)
        }
        guard !witness.isSame(storage.pointee, newValue) else { return false }
        storage.pointee = newValue
        return true
    }

    override func removeOverride() -> Bool {
        overrideSource = nil
        guard let user = overriddenUserValue else { return false }
        let changed = !witness.isSame(storage.pointee, user.pointee)
        storage.deinitialize(count: 1)
        storage.moveInitialize(from: user, count: 1)
        user.deallocate()
        overriddenUserValue = nil
        return changed
    }
}

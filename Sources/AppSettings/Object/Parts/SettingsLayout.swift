import Foundation

/// What is known about the `@Setting` properties of one settings class, found once by reflection
/// (``StoredFields``) and reused by every later instance.
struct SettingsLayout: @unchecked Sendable {
    /// The class's name (``settingsClassName(of:)``): the default key postfix, and for messages.
    let className: String
    /// The stored names, in declaration order, superclass first.
    let names: [String]
    /// Which settings fall under the `const` rule.
    let isConstant: [Bool]
    /// For each declaration-order position, where its slot is in the popped registration order.
    let registrationOrder: [Int]
    /// The slot class of each position, to check later instances cheaply.
    let slotTypes: [ObjectIdentifier]
    /// A problem with the declarations (duplicate or invalid stored names).
    let error: AppSettingsError?
    /// What Observation tracks for each position (key paths are immutable, hence the
    /// `@unchecked Sendable`).
    let observationKeyPaths: [KeyPath<AppSettingsObject, Int>]
    /// The `userInfo` of a change notification for each setting alone (never mutated).
    let changeUserInfos: [[AnyHashable: Any]]

    private static let cache = Protected<[ObjectIdentifier: SettingsLayout]>([:])

    /// The `const` rule: `const` followed by an uppercase letter, a digit or `_`.
    static func isConstantName(_ name: String) -> Bool {
        guard name.hasPrefix("const"), let next = name.dropFirst(5).first else { return false }
        return next.isUppercase || next.isNumber || next == "_"
    }

    /// Returns the slots of `object` in declaration order, with names set, using the cached layout
    /// of its class or building it.
    static func attach(to object: AppSettingsObject) -> (slots: [AnySettingSlot], layout: SettingsLayout) {
        let type = ObjectIdentifier(Swift.type(of: object))
        if let layout = cache.withLock({ $0[type] }), let popped = SlotRegistration.pop(layout.slotTypes.count) {
            let slots = layout.registrationOrder.map { popped[$0] }
            if zip(slots, layout.slotTypes).allSatisfy({ ObjectIdentifier(Swift.type(of: $0.0)) == $0.1 }) {
                layout.name(slots)
                return (slots, layout)
            }
            // Something pushed slots outside an initializer: put them back and take the slow path.
            for slot in popped { SlotRegistration.push(slot) }
        }
        let (slots, layout) = discover(object)
        cache.withLock { $0[type] = layout }
        SecureCodingSupport.adopt(Swift.type(of: object))
        layout.name(slots)
        return (slots, layout)
    }

    private func name(_ slots: [AnySettingSlot]) {
        for (index, slot) in slots.enumerated() {
            slot.index = index
            slot.name = names[index]
            slot.isConstant = isConstant[index]
            slot.observationKeyPath = observationKeyPaths[index]
            slot.changeUserInfo = changeUserInfos[index]
        }
    }

    private static func discover(_ object: AppSettingsObject) -> ([AnySettingSlot], SettingsLayout) {
        let levels = StoredFields.byClass(of: object, upTo: AppSettingsObject.self).map { fields in
            fields.map { field -> (label: String, slot: AnySettingSlot) in
                (field.name.hasPrefix("_") ? String(field.name.dropFirst()) : field.name, field.slot)
            }
        }
        var found = levels.reversed().flatMap { $0 }
        // Slots its initialization registered that reflection did not find: the class's
        // reflection metadata was stripped. They work in memory, unnamed; nothing is stored.
        let unfound = found.isEmpty && !SlotRegistration.pending.isEmpty
        if unfound, let pending = SlotRegistration.pop(SlotRegistration.pending.count) {
            found = pending.enumerated().map { ("(unnamed \($0.offset + 1))", $0.element) }
        }
        SlotRegistration.remove(found.map(\.slot))
        // Registration pushes subclass properties first; record where each declared one lands.
        var pushedPosition: [ObjectIdentifier: Int] = [:]
        for (position, entry) in (unfound ? found : levels.flatMap({ $0 })).enumerated() {
            pushedPosition[ObjectIdentifier(entry.slot)] = position
        }
        let registrationOrder = found.map { pushedPosition[ObjectIdentifier($0.slot)] ?? 0 }
        var names: [String] = []
        var seen: Set<String> = []
        let className = settingsClassName(of: Swift.type(of: object))
        var error: AppSettingsError? = unfound ? .settingsNotFound(settingsClass: className) : nil
        for entry in found {
            let name = entry.slot.explicitStoredName ?? entry.label
            if let explicit = entry.slot.explicitStoredName,
                explicit.isEmpty || explicit.hasPrefix("$") || isConstantName(explicit)
            {
                error = error ?? .invalidStoredName(settingsClass: className, name: explicit)
            }
            if !seen.insert(name).inserted {
                error = error ?? .duplicateStoredName(settingsClass: className, name: name)
            }
            names.append(name)
        }
        let layout = SettingsLayout(
            className: className,
            names: names,
            isConstant: found.map { isConstantName($0.label) },
            registrationOrder: registrationOrder,
            slotTypes: found.map { ObjectIdentifier(Swift.type(of: $0.slot)) },
            error: error,
            observationKeyPaths: found.indices.map(ObservationKeys.keyPath(for:)),
            changeUserInfos: names.map { [AppSettingsObject.changedSettingNamesKey: [$0]] }
        )
        return (found.map(\.slot), layout)
    }
}

/// Lets stored properties be recognized as settings without knowing their value type.
protocol _SettingWrapper {
    var _slot: AnySettingSlot { get }
}

extension Setting: _SettingWrapper {
    var _slot: AnySettingSlot { slot }
}

extension SettingsLayout {
    static let empty = SettingsLayout(
        className: "", names: [], isConstant: [], registrationOrder: [], slotTypes: [], error: nil,
        observationKeyPaths: [], changeUserInfos: []
    )
}

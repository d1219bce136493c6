import Foundation

/// The `@Setting` properties of a settings object, class by class, found with `Mirror`: public
/// reflection, whatever the toolchain.
///
/// Reflection needs the class's reflection metadata, which a build setting can strip
/// (`SWIFT_REFLECTION_METADATA_LEVEL = none`, `-disable-reflection-metadata`): then `Mirror` sees no
/// property, and ``SettingsLayout`` reports the class's settings as not found rather than storing
/// an empty set.
enum StoredFields {
    struct Field {
        /// The property's name (`_name` for a wrapped property).
        var name: String
        var slot: AnySettingSlot
    }

    /// The `@Setting` properties of `object` declared by its class and by its superclasses up to,
    /// not including, `base`, grouped by class: the object's own class first. A slot `registered` (by the object being
    /// initialized) is told by its wrapper's type: a cast to `_SettingWrapper` scans conformance records per new type.
    static func byClass(
        of object: AppSettingsObject, upTo base: AnyClass, registered: [AnySettingSlot] = SlotRegistration.pending
    ) -> [[Field]] {
        var levels: [[Field]] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let level = mirror, level.subjectType != base {
            levels.append(
                level.children.compactMap { child in
                    guard let label = child.label else { return nil }
                    let known = registered.lazy.compactMap { $0.slot(ofWrapper: child.value) }.first
                    guard let slot = known ?? (child.value as? any _SettingWrapper)?._slot else { return nil }
                    return Field(name: label, slot: slot)
                })
            mirror = level.superclassMirror
        }
        return levels
    }
}

import Foundation

#if canImport(ObjectiveC)
    import ObjectiveC
#elseif APPLE_STAND_INS
    import AppleStandIns
#endif

/// What a settings object needs of `NSSecureCoding` besides its conformance.
enum SecureCodingSupport {
    /// The key of the settings in another archive (``AppSettingsObject/encode(with:)``).
    static let settingsKey = "settings"

    /// Gives `subclass` a `+supportsSecureCoding` method of its own on Apple platforms, so that
    /// `NSKeyedUnarchiver` decodes it without the subclass writing the override itself.
    ///
    /// Foundation's `-[NSCoder validateClassSupportsSecureCoding:]` looks for the nearest class,
    /// from the decoded one up, that implements `-initWithCoder:` itself, and refuses it unless its
    /// metaclass implements `+supportsSecureCoding` itself too. "Itself" means: its `IMP` differs
    /// from the superclass's, or, when the `IMP`s are equal, its `Method` does. Swift synthesizes
    /// `init(coder:)` in every subclass, so every subclass is that class. Adding to the subclass's
    /// metaclass the `IMP` the subclass resolves now (its nearest ancestor's: an intermediate class
    /// that overrides `supportsSecureCoding` decides for the classes below it) gives it a `Method`
    /// of its own.
    ///
    /// Called once per class, when its layout is built at its first instance. `class_addMethod`
    /// changes nothing when the class already has the method (a subclass that overrides it).
    static func adopt(_ subclass: AppSettingsObject.Type) {
        #if canImport(ObjectiveC) || APPLE_STAND_INS
            let selector = NSSelectorFromString("supportsSecureCoding")
            guard subclass != AppSettingsObject.self,
                let resolved = class_getClassMethod(subclass, selector),
                let metaclass = object_getClass(subclass)
            else { return }
            _ = class_addMethod(
                metaclass, selector, method_getImplementation(resolved), method_getTypeEncoding(resolved))
        #endif
    }
}

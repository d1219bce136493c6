import Foundation
import Observation

// Apple platforms: the Objective-C runtime, to give each subclass its own `+supportsSecureCoding`.
#if canImport(ObjectiveC)
    import ObjectiveC
#elseif APPLE_STAND_INS
    import AppleStandIns
#endif

// `supportsSecureCoding` is declared in the class body: Swift lets a subclass override a
// non-`@objc` member (as on Linux) only when it is declared there, not in an extension.
extension AppSettingsObject: NSSecureCoding {
    /// Encodes the settings (by stored name, as Foundation objects) so that a settings object can
    /// be part of another archive. `UserDefaults` storage does not use this: see
    /// ``synchronizeToUserDefaults()``.
    public func encode(with coder: NSCoder) {
        let snapshot = ledger.takeSnapshot()
        do {
            let settings = try SettingsCodec(object: self).encodedSettings(snapshot)
            coder.encode(StoredValue.dictionary(settings).foundationObject, forKey: SecureCodingSupport.settingsKey)
        } catch {
            // `encode(with:)` cannot throw, and `failWithError` traps in corelibs' archivers: the
            // archive holds no settings (it decodes to developer defaults) and the error is logged.
            Log.error("\(type(of: self)): encoding for another archive failed: \(error)")
        }
    }
}

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

extension AppSettingsObject: NSCopying {
    /// An independent settings object of the same class, bound to the same `UserDefaults`, with
    /// the same values and the same unsaved state.
    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = ledger.makeScratchCopy(copyingValues: true)
        copy.ledger.markUnsaved(hasUnsavedChanges)
        copy.overrides.applyOverrides(of: self)
        StoreRegistry.publish(copy)
        return copy
    }
}

import Foundation
import Observation

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

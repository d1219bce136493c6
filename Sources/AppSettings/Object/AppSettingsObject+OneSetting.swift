import Foundation

/// Lets members that take a key path of the settings object's own class infer that class, so
/// that `settings.resetToDeveloperDefault(\.soundLevel)` compiles. Every ``AppSettingsObject``
/// conforms; there is nothing to implement.
public protocol AppSettingsKeyPathMembers: AppSettingsObject {}

extension AppSettingsObject: AppSettingsKeyPathMembers {}

extension AppSettingsKeyPathMembers {
    /// Sets one setting back to its developer default, leaving the others as they are.
    ///
    /// ```swift
    /// settings.resetToDeveloperDefault(\.soundLevel)
    /// settings.resetToDeveloperDefault(\MySettings.audio)        // a nested settings object, whole
    /// settings.resetToDeveloperDefault(\MySettings.audio.volume) // one of its settings
    /// ```
    ///
    /// The developer default is the value ``AppSettingsObject/resetToDeveloperDefaults()``
    /// produces, your override included. The change is an ordinary assignment: validated,
    /// observed, announced by ``AppSettingsObject/didChangeNotification`` and unsaved until
    /// ``AppSettingsObject/synchronizeToUserDefaults()``. A nested settings object keeps its
    /// identity; its settings are reset in one step.
    public func resetToDeveloperDefault<Value: SettingValue>(_ keyPath: ReferenceWritableKeyPath<Self, Value>) {
        let defaults = developerDefaults(of: self)
        let value = defaults[keyPath: keyPath]
        if let nested = self[keyPath: keyPath] as? AppSettingsObject, let defaultNested = value as? AppSettingsObject {
            nested.ledger.replaceValues(as: .change) { $0.ledger.fill(from: defaultNested.ledger.takeSnapshot()) }
        } else {
            self[keyPath: keyPath] = value
        }
    }

    /// Whether one setting holds its developer default (see ``resetToDeveloperDefault(_:)``); a
    /// nested settings object holds it when each of its settings does.
    public func isDeveloperDefault<Value: SettingValue>(_ keyPath: KeyPath<Self, Value>) -> Bool {
        let current = self[keyPath: keyPath]
        let developerDefault = developerDefaults(of: self)[keyPath: keyPath]
        if let nested = current as? AppSettingsObject, let defaultNested = developerDefault as? AppSettingsObject {
            return nested.isEqual(defaultNested)
        }
        return Value.isSameSettingValue(current, developerDefault)
    }
}

/// A scratch object of `object`'s class holding the developer defaults (the override's included).
private func developerDefaults<Object: AppSettingsObject>(of object: Object) -> Object {
    let scratch = object.ledger.makeScratchCopy(copyingValues: false)
    scratch.resetToDeveloperDefaults()
    // `makeScratchCopy` creates an instance of the object's own class.
    return unsafeDowncast(scratch, to: Object.self)
}

import Foundation

/// One role of a settings object, as a value over it: the class keeps a narrow surface (its
/// public API, the lock and the slots) and each role's code lives in its part: the ledger of what
/// is stored (`SettingsLedger`), overrides (`SettingsOverrides`), the sync coordinator
/// (`object.syncCoordinator`), the Settings app (`SettingsAppBridge`), the codec (`SettingsCodec`), the
/// test hooks (`TestingHooks`). A part is made where it is used (`object.ledger`), holds
/// nothing but the object, and reaches the state through the object's lock.
protocol ObjectPart {
    var object: AppSettingsObject { get }
}

extension ObjectPart {
    // What every part reads of its object, so that its code reads as the object's own.
    var slots: [AnySettingSlot] { object.slots }
    var _state: Protected<ObjectState> { object._state }
    var store: SettingsStore { object.binding.store }
    var userDefaultsKey: String { object.userDefaultsKey }
    var isPublished: Bool { object.isPublished }
    var codec: SettingsCodec { SettingsCodec(object: object) }
    var settingsKey: SettingsKey { object.binding.key }
    var embeddingParent: AppSettingsObject? { object.announcer.parent }
    var ledger: SettingsLedger { object.ledger }
    var announcer: Announcer { object.announcer }
    var forms: SettingsForms { object.forms }
    var overrides: SettingsOverrides { object.overrides }
    var settingsApp: SettingsAppBridge { object.settingsApp }
}

import Foundation

/// The set in the forms it takes outside its store: a dictionary (`+Dictionary`), a JSON document
/// (`+JSON`), its schema (`+Schema`), where each value comes from (`+SettingSource`), equality,
/// hash and description (`+Equality`). Each form reads and fills the object through the ledger and
/// the codec, as a load and a save do.
struct SettingsForms: ObjectPart {
    let object: AppSettingsObject
}

extension AppSettingsObject {
    /// The set as a dictionary, a JSON document, a schema (``SettingsForms``).
    var forms: SettingsForms { SettingsForms(object: self) }
}

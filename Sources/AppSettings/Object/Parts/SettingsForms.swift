import Foundation

/// The set in the forms it takes outside its store: a dictionary, a JSON document, its schema,
/// where each value comes from, equality, hash and description (the `AppSettingsObject+` files).
struct SettingsForms: ObjectPart {
    let object: AppSettingsObject
}

extension AppSettingsObject {
    /// The set as a dictionary, a JSON document, a schema (``SettingsForms``).
    var forms: SettingsForms { SettingsForms(object: self) }
}

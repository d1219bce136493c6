import Foundation

/// What a scratch copy is created with, in place of its `UserDefaults`: an object nobody else
/// sees, made to run the subclass's own code (its `init`, `resetToDeveloperDefaults()`,
/// `checkAfterDecode()`, `validate:`) over values that are not the live object's yet.
///
/// `init(userDefaults:)` is the one initializer every subclass has, so the instruction to skip the
/// load travels in its argument: `init` binds the copy to `original` and neither loads, applies
/// overrides nor publishes it. Nothing about the calling thread decides it.
final class ScratchCopyDefaults: UserDefaults {
    /// The store the copy stands for: the live object's, its ``AppSettingsObject/userDefaults`` too.
    let store: AppSettingsStore

    init(for store: AppSettingsStore) {
        self.store = store
        // A `UserDefaults` needs a suite to exist; this one is never read or written: the copy
        // holds `original`, not this.
        super.init(suiteName: nil)!
    }

    /// For throwaway instances that only describe a class (its settings, their forms): bound to
    /// `.standard` and never loaded. (Not `Sendable` in corelibs; `UserDefaults` is thread-safe,
    /// Foundation documents, and this one's only own property is immutable.)
    nonisolated(unsafe) static let describingClass = ScratchCopyDefaults(for: .standard)

    /// While an object is made to describe its class (`SettingsForms.developerDefaults()`): every
    /// settings object created then, its nested ones included (whose property initializers name
    /// their own stores), is a describing one, never loaded, overridden or published. So no
    /// store is read, which a save, under its store's lock, could not let it.
    @TaskLocal static var isDescribing = false

    /// A throwaway instance of `type` that only describes its class, made while `isDescribing`.
    static func describing<Object: AppSettingsObject>(_ type: Object.Type) -> Object {
        $isDescribing.withValue(true) { type.init(userDefaults: describingClass) }
    }
}

/// While the default `sharedStore` asks `sharedUserDefaults` (or the other way round): the default
/// of the other answers `.standard` then, so that a class overriding neither gets `.standard` and
/// one overriding either gets its override from both.
enum SharedStoreDefaults {
    @TaskLocal static var isResolving = false
}

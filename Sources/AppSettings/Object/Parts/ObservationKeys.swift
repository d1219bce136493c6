import Foundation

/// One key path per setting position, shared by all classes: Observation only needs a stable,
/// distinct identity per setting of an object.
enum ObservationKeys {
    /// The key path of a slot not yet attached to an object. Key paths are immutable.
    nonisolated(unsafe) static let placeholder: KeyPath<AppSettingsObject, Int> =
        \AppSettingsObject.[_observedSetting: -1]

    private static let keyPaths = Protected<[KeyPath<AppSettingsObject, Int>]>([])

    static func keyPath(for index: Int) -> KeyPath<AppSettingsObject, Int> {
        keyPaths.withLock { keyPaths in
            while keyPaths.count <= index {
                keyPaths.append(\AppSettingsObject.[_observedSetting: keyPaths.count])
            }
            return keyPaths[index]
        }
    }
}

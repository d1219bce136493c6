import AppSettings
import Foundation

/// The test target's `ShownReplicaSettings`: settings shown in the Settings app beside one that is
/// not, so that this process and the tests read each other's sets and shown keys.
final class ShownHostSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(description: "Name", inSettingsApp: true) var name = "guest"
    @Setting(in: 0...10, description: "Retries", inSettingsApp: true) var retries = 3
    @Setting var count = 0
    override var userDefaultsKeyPostfix: String { "Replicas" }
}

import AppSettings
import Foundation

// MARK: A whole launch

/// `Benchmarks --launch setup|appsettings|codable`: one step of scripts/launch-benchmark.sh, which
/// times whole processes. `setup` stores a set of 20 settings both ways in
/// `UserDefaults.standard`; `appsettings` reads one setting of `Settings20.shared`; `codable`
/// decodes the equivalent `Codable` struct from `UserDefaults.standard`. Both print the value.
@MainActor
func runLaunchStep(_ step: String) throws {
    let codableKey = "PlainSettings20"
    switch step {
    case "setup":
        let settings = Settings20.shared
        settings.makeDirty()
        try settings.synchronizeToUserDefaults()
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        UserDefaults.standard.set(try encoder.encode(PlainSettings20()), forKey: codableKey)
        guard UserDefaults.standard.synchronize() else { throw LaunchError("UserDefaults could not write") }
    case "appsettings":
        print(Settings20.shared.setting1)
    case "codable":
        guard let data = UserDefaults.standard.data(forKey: codableKey) else { throw LaunchError("nothing stored") }
        print(try PropertyListDecoder().decode(PlainSettings20.self, from: data).setting1)
    default:
        throw LaunchError("unknown launch step '\(step)': use setup, appsettings or codable")
    }
}

struct LaunchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

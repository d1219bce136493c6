import Foundation
import Observation
import Testing

@testable import AppSettings

extension OverrideTests {
    // MARK: Precedence and sources

    @Test("managed, then launch argument, then environment, then stored, then developer default")
    func precedence() throws {
        let fresh = make()
        #expect(fresh.name == "none" && fresh.source(of: \.name) == .developerDefault)

        fresh.name = "stored"
        #expect(fresh.source(of: \.name) == .stored, "assigned: the user's value")
        try fresh.synchronizeToUserDefaults()
        #expect(make().source(of: \.name) == .stored)

        let environment = ["OVERRIDDEN_SETTINGS_NAME": "environment"]
        let arguments = ["-OverriddenSettings.name", "argument"]
        let fromEnvironment = make(environment: environment)
        #expect(fromEnvironment.name == "environment" && fromEnvironment.source(of: \.name) == .environment)
        let fromArgument = make(arguments: arguments, environment: environment)
        #expect(fromArgument.name == "argument" && fromArgument.source(of: \.name) == .launchArgument)
        let fromManaged = make(arguments: arguments, environment: environment, managed: ["name": "managed"])
        #expect(fromManaged.name == "managed" && fromManaged.source(of: \.name) == .managed)
        #expect(fromManaged.source(of: \.theme) == .stored)
        #expect(fromManaged.ignoredOverrides.isEmpty)
    }

    @Test("source(of:) follows nested settings and computed properties")
    func sourceOfKeyPaths() {
        let settings = make(
            arguments: ["-OverriddenSettings.audio.volume", "8"], environment: ["OVERRIDDEN_SETTINGS_NAME": "x"])
        #expect(settings.audio.volume == 8)
        #expect(settings.source(of: \.audio.volume) == .launchArgument)
        #expect(settings.source(of: \.audio.muted) == .developerDefault)
        #expect(settings.audio.source(of: \.volume) == .launchArgument)
        #expect(settings.source(of: \.greeting) == .environment, "reads name")
        #expect(settings.source(of: \.plain) == .developerDefault, "reads no setting")
        #expect(settings.source(of: \.soundLevel) == .developerDefault)
    }

    @Test("source(of:) inside an Observation tracking tracks the setting it names, nothing else")
    func sourceOfInsideATracking() {
        let settings = make(managed: ["theme": "dark"])
        let fired = Recorder<Bool>()
        withObservationTracking {
            #expect(settings.source(of: \.themeName) == .managed)
        } onChange: {
            fired.record(true)
        }
        #expect(fired.values.isEmpty, "the search for the setting is not the caller's to see")
        setManaged(["theme": "system"])
        postUserDefaultsChange()
        #expect(!fired.values.isEmpty)
        #expect(settings.theme == .system)
    }

    @Test("validate: runs on an override")
    func validateRunsOnOverrides() {
        let settings = make(arguments: ["-OverriddenSettings.soundLevel", "5"])
        #expect(settings.soundLevel == 1)
        #expect(settings.source(of: \.soundLevel) == .launchArgument)
    }

    @Test("an override that does not parse or fit is ignored and listed; the next source applies")
    func ignoredOverrides() {
        let settings = make(
            arguments: [
                "-OverriddenSettings.volume", "999", "-OverriddenSettings.soundLevel", "loud",
                "-OverriddenSettings.nosuch", "1", "-OverriddenSettings.audio", "{volume = 2;}",
            ],
            environment: ["OVERRIDDEN_SETTINGS_VOLUME": "4"],
            managed: ["theme": "purple"])
        #expect(settings.volume == 4 && settings.source(of: \.volume) == .environment)
        #expect(settings.soundLevel == 0.7 && settings.source(of: \.soundLevel) == .developerDefault)
        #expect(settings.theme == .light)
        let ignored = settings.ignoredOverrides
        #expect(Set(ignored.map(\.setting)) == ["volume", "soundLevel", "nosuch", "audio", "theme"])
        let volume = ignored.first { $0.setting == "volume" }
        #expect(volume?.source == .launchArgument)
        #expect(volume?.origin == "-OverriddenSettings.volume")
        #expect(volume?.value == "999")
        // In the words a document's refusal uses (issues 39, 48): what the setting accepts; the
        // record names the value.
        #expect(volume?.reason == "expected an integer in -128...127")
        let theme = ignored.first { $0.setting == "theme" }
        #expect(theme?.source == .managed)
        #expect(
            theme?.reason.contains(#"expected one of "light", "dark", "system""#) == true,
            "\(String(describing: theme))")
        #expect(settings.audio.ignoredOverrides == ignored, "a nested object lists its parent's")
    }

    @Test("a managed configuration that is not a dictionary is ignored and listed")
    func unreadableManagedConfiguration() {
        suite.userDefaults.set("nonsense", forKey: ManagedConfigurationSource.managedAppConfigurationKey)
        let settings = OverrideSources.$current.withValue(sources()) {
            OverriddenSettings(userDefaults: suite.userDefaults)
        }
        #expect(settings.ignoredOverrides.count == 1)
        #expect(settings.ignoredOverrides.first?.setting == "")
        #expect(settings.ignoredOverrides.first?.source == .managed)
    }
}

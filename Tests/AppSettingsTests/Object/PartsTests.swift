import Foundation
import Testing

@testable import AppSettings

/// A class with a synced, a local and a `const` synced setting, for the sync coordinator alone.
private final class PartsSyncedSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(syncs: true) var theme = "light"
    @Setting var local = 1
    @Setting(syncs: true) var constBuild = 0
}

/// A class that shows one setting in the Settings app, for the bridge alone.
private final class PartsShownSettings: AppSettingsObject, @unchecked Sendable {
    @Setting(description: "Volume", inSettingsApp: true) var volume = 5
    @Setting var hidden = "x"
}

/// Each part of an object called on its own (`Object/Parts/ObjectPart.swift`): what it decides or
/// makes, without the public path around it. The public behaviour is tested by the other suites.
@Suite("Each part of an object, alone", .capturedLibraryLog)
struct PartsTests {
    let suite = TemporarySuite.forSettings()

    @Test("the ledger decides a write from a snapshot and what is stored, and writes nothing itself")
    func ledgerDecidesWrites() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.theme = .dark
        let snapshot = settings.ledger.takeSnapshot()
        #expect(snapshot.changes.hasUnsavedChanges)

        func decide(_ stored: PreferencesValue?) throws -> SettingsStore.Write<SettingsLedger.WriteDecision> {
            let reconciliation = Reconciliation(
                .unsavedChanges, snapshot: snapshot, stored: stored,
                read: SettingsCodec(object: settings).readStoredSettings)
            return try settings.ledger.decideWrite(reconciliation, replicas: [], generation: 1)
        }
        // Nothing stored: the snapshot as it is, with no merged copy.
        let alone = try decide(nil)
        let encoded = try SettingsCodec(object: settings).encodedSettings(snapshot)
        #expect(alone.decision.settings == encoded)
        #expect(alone.decision.merged == nil && alone.backup == nil)

        // Another writer's set: what it changed is taken, what this object changed is kept.
        let other = MySettings(userDefaults: suite.another())
        other.soundLevel = 0.25
        let otherBytes = try TestingHooks(object: other).archivedBytes()
        let merged = try decide(.data(otherBytes))
        let otherEncoded = try SettingsCodec(object: other).encodedSettings(other.ledger.takeSnapshot())
        #expect(merged.decision.settings["soundLevel"] == otherEncoded["soundLevel"])
        #expect(merged.decision.settings["theme"] == encoded["theme"])
        #expect(merged.decision.merged != nil)

        // Not a settings set: replaced, and kept under a backup key.
        let replaced = try decide(.other(7, typeName: "Int"))
        #expect(replaced.backup != nil && replaced.decision.settings == encoded)

        // Deciding wrote nothing: the store holds no set, the object is still unsaved.
        #expect(try TestingHooks(object: settings).readStoredBytes() == nil)
        #expect(settings.hasUnsavedChanges)
    }

    @Test("the announcer tells a transaction's changes in one notification, and nothing for none")
    func announcerCoalesces() {
        let settings = MySettings(userDefaults: suite.userDefaults)
        let told = NotificationRecorder(settings)
        settings.announcer.inTransaction {
            settings.theme = .dark
            settings.dontDimScreen = true
        }
        #expect(told.names.values == [["dontDimScreen", "theme"]])
        settings.announcer.announce([])
        #expect(told.names.values.count == 1)
        settings.announcer.announce([settings.slots.first { $0.name == "theme" }!.index])
        #expect(told.names.values == [["dontDimScreen", "theme"], ["theme"]])
    }

    @Test("the announcer knows a nested object's parent, and the overrides part its topmost object")
    func parentsAndTopmostObject() {
        let settings = AllTypesSettings(userDefaults: suite.userDefaults)
        #expect(settings.audio.announcer.parent === settings)
        #expect(settings.announcer.parent == nil)
        #expect(settings.audio.overrides.topmostObject === settings)
        #expect(settings.overrides.topmostObject === settings)
    }

    @Test("the overrides part puts a value over a setting and clears it again without saving")
    func overridesApplyAndClear() throws {
        let postfix = MySettings(userDefaults: suite.another()).binding.key.postfix
        let sources = OverrideSources(
            arguments: ["test", "-\(postfix).theme", "dark"], environment: [:], managed: .none)
        let settings = OverrideSources.$current.withValue(sources) { MySettings(userDefaults: suite.userDefaults) }
        #expect(settings.theme == .dark)
        #expect(!settings.hasUnsavedChanges)
        // A scratch copy has none until it takes the sources of the object it copies.
        let copy = settings.ledger.makeScratchCopy(copyingValues: false)
        #expect((copy as? MySettings)?.theme == .light)
        copy.overrides.applyOverrides(of: settings)
        #expect((copy as? MySettings)?.theme == .dark)
        // Cleared (an object being nested takes its parent's): nothing is left to apply again.
        settings.overrides.clearOverrides()
        #expect(settings.theme == .light)
        #expect(settings.source(of: \.theme) == .developerDefault)
        settings.overrides.reapplyOverrides()
        #expect(settings.theme == .light)
    }

    @Test("the forms part reads a JSON form by each setting's type and refuses a name that is no setting")
    func formsReadJSONForms() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        let entries = try settings.forms.storedEntries(fromJSONForm: ["dontDimScreen": .bool(true)], key: "k")
        #expect(entries == ["dontDimScreen": .bool(true)])
        #expect(throws: AppSettingsError.self) {
            try settings.forms.storedEntries(fromJSONForm: ["noSuchSetting": .bool(true)], key: "k")
        }
        #expect(settings.forms.settingsAreEqual(to: MySettings(userDefaults: suite.another())))
        #expect(!settings.forms.settingsAreEqual(to: AudioSettings(userDefaults: suite.another())))
        #expect(!settings.forms.settingsAreEqual(to: "not a settings object"))
        let dictionary = settings.forms.dictionary(from: settings.ledger.takeSnapshot())
        #expect(NSDictionary(dictionary: dictionary) == NSDictionary(dictionary: settings.dictionaryRepresentation()))
    }

    @Test("the sync coordinator lists the synced settings with their cloud keys, never a const one")
    func coordinatorListsSyncedSettings() {
        let settings = PartsSyncedSettings(userDefaults: suite.userDefaults)
        let synced = settings.syncCoordinator.syncedSettings(storedValues: [:])
        #expect(synced.map(\.name) == ["theme"])
        #expect(synced.map(\.key) == [settings.binding.key.cloudKey(ofSettingNamed: "theme")])
        // Nothing stored for it: its developer default.
        #expect(synced.first?.stored == .string("light"))
        #expect(
            settings.syncCoordinator.syncedSettings(storedValues: ["theme": .string("dark")]).first?.stored
                == .string("dark"))
    }

    @Test("the Settings app bridge shows only the settings declared for it, each under its key")
    func bridgeShowsDeclaredSettings() throws {
        let settings = PartsShownSettings(userDefaults: suite.userDefaults)
        #expect(settings.settingsApp.showsAny)
        #expect(!MySettings(userDefaults: suite.another()).settingsApp.showsAny)
        let shown = settings.settingsApp.shownSlots
        #expect(shown.map(\.slot.name) == ["volume"])
        #expect(shown.map(\.key) == [settings.binding.key.settingsAppKey(of: "volume")])

        // A write carries each shown setting's value under its key, and records it.
        let reconciliation = Reconciliation(
            .unsavedChanges, snapshot: settings.ledger.takeSnapshot(), stored: nil,
            read: SettingsCodec(object: settings).readStoredSettings)
        let write = try settings.ledger.decideWrite(
            reconciliation, replicas: [SettingsAppReplica(object: settings)], generation: 1)
        #expect(write.entries.count == 1)
        #expect("\(write.entries[shown[0].key] ?? "none")" == "5")
        #expect(
            write.decision.stored.records[ArchiveFormat.shownBaseField]
                == StoredValue.dictionary(["volume": .integer(5)]))
    }
}

import AppSettings
import Foundation
import Testing

@testable import AppSettings

extension ProcessWideNotices {
    /// The keys the Settings app shows, both ways: a save writes them, a load and a live object take
    /// what the Settings app (here: another `UserDefaults` of the suite) wrote there. Serialized: the
    /// foreground notice these tests post reaches every live object of the process.
    @Suite(.serialized) struct SettingsAppBothWaysTests {
        let suite = TemporarySuite()

        private let keys = [
            "SettingsAppPage.dontDimScreen", "SettingsAppPage.soundLevel", "SettingsAppPage.theme",
            "SettingsAppPage.name",
        ]

        /// What the Settings app does: writes under the shown keys, through its own `UserDefaults`.
        private func settingsAppWrites(_ values: [String: Any]) {
            let settingsApp = suite.another()
            for (key, value) in values { settingsApp.set(value, forKey: key) }
            settingsApp.synchronize()
        }

        @Test func aSaveShowsTheValuesUnderTheirKeys() throws {
            let settings = SettingsAppPageSettings(userDefaults: suite.userDefaults)
            settings.dontDimScreen = true
            settings.soundLevel = 0.25
            settings.theme = .dark
            settings.name = "Ann"
            settings.notShown = 9
            try settings.synchronizeToUserDefaults()
            #expect(suite.storedObject(forKey: "SettingsAppPage.dontDimScreen") as? Bool == true)
            #expect(suite.storedObject(forKey: "SettingsAppPage.soundLevel") as? Double == 0.25)
            #expect(suite.storedObject(forKey: "SettingsAppPage.theme") as? String == "dark")
            #expect(suite.storedObject(forKey: "SettingsAppPage.name") as? String == "Ann")
            #expect(suite.storedObject(forKey: "SettingsAppPage.notShown") == nil)
            // Numbers in text fields are text, as the Settings app's text field writes them.
            let numbers = SettingsAppNumberSettings(userDefaults: suite.userDefaults)
            numbers.retryCount = 12
            try numbers.synchronizeToUserDefaults()
            #expect(suite.storedObject(forKey: "SettingsAppNumbers.retryCount") as? String == "12")
            #expect(suite.storedObject(forKey: "SettingsAppNumbers.ratio") as? String == "0.25")
            #expect(suite.storedObject(forKey: "SettingsAppNumbers.level") as? Int == 2)
        }

        @Test func aNewObjectTakesWhatTheSettingsAppWroteThroughTheSettingsRules() throws {
            let first = SettingsAppPageSettings(userDefaults: suite.userDefaults)
            first.theme = .dark
            try first.synchronizeToUserDefaults()
            settingsAppWrites([
                "SettingsAppPage.dontDimScreen": true, "SettingsAppPage.soundLevel": 5.0,
                "SettingsAppPage.theme": "sepia", "SettingsAppPage.name": "Bo",
            ])
            let settings = SettingsAppPageSettings(userDefaults: suite.another())
            #expect(settings.dontDimScreen)
            #expect(settings.soundLevel == 0.7)  // beyond the slider's range: not taken (issue 48), not clamped
            #expect(settings.theme == .dark)  // an unknown choice is not taken
            #expect(settings.name == "Bo")
            #expect(settings.ignoredSettingsAppValues.map(\.setting) == ["soundLevel", "theme"])
            #expect(settings.ignoredSettingsAppValues.last?.key == "SettingsAppPage.theme")
            #expect(settings.ignoredSettingsAppValues.last?.value == #""sepia""#)
            #expect(settings.ignoredSettingsAppValues.last?.reason == #"expected one of "light", "dark", "darkBlue""#)
            // Taken as changes: the next save stores them in the set, and shows the set's values.
            #expect(settings.hasUnsavedChanges)
            try settings.synchronizeToUserDefaults()
            #expect(suite.storedObject(forKey: "SettingsAppPage.soundLevel") as? Double == 0.7)
            #expect(suite.storedObject(forKey: "SettingsAppPage.theme") as? String == "dark")
            try first.resetToUserDefaults()
            #expect(first.dontDimScreen && first.soundLevel == 0.7 && first.name == "Bo" && first.theme == .dark)
        }

        @Test func oddValuesAreIgnoredWithAReasonInTheWordsOfTheDeclaration() throws {
            let first = SettingsAppNumberSettings(userDefaults: suite.userDefaults)
            try first.synchronizeToUserDefaults()
            settingsAppWrites([
                "SettingsAppNumbers.ratio": "5.0e-1", "SettingsAppNumbers.pageCount": Double.nan,
                "SettingsAppNumbers.retryCount": "7.0", "SettingsAppNumbers.unsignedLimit": "1e30",
            ])
            let settings = SettingsAppNumberSettings(userDefaults: suite.another())
            #expect(settings.scaleRatio == 0.5)
            #expect(settings.retryCount == 7)  // an integer written as a decimal, read by its digits
            #expect(settings.pageCount == 4)  // NaN is in no range: not taken as a bound
            #expect(settings.unsignedLimit == 8)
            let reasons = Dictionary(
                uniqueKeysWithValues: settings.ignoredSettingsAppValues.map { ($0.setting, $0.reason) })
            #expect(
                reasons == [
                    "pageCount": "expected an integer in 1...10",
                    "unsignedLimit": "expected an integer in 0...18446744073709551615",
                ])
            settingsAppWrites(["SettingsAppNumbers.pageCount": 1e30, "SettingsAppNumbers.retryCount": "1.5"])
            try settings.resetToUserDefaults()
            #expect(settings.pageCount == 4 && settings.retryCount == 3)
            #expect(
                settings.ignoredSettingsAppValues.map(\.description).sorted().prefix(2) == [
                    "Settings app value SettingsAppNumbers.pageCount = 1e+30 for 'pageCount' ignored: expected an integer in 1...10",
                    #"Settings app value SettingsAppNumbers.retryCount = "1.5" for 'retryCount' ignored: expected an integer in -9223372036854775808...9223372036854775807"#,
                ])
        }

        @Test func textFieldsAndIntegerSlidersAreReadAsTheSettingsType() throws {
            let first = SettingsAppNumberSettings(userDefaults: suite.userDefaults)
            first.retryCount = 5
            try first.synchronizeToUserDefaults()
            settingsAppWrites([
                "SettingsAppNumbers.retryCount": "-4", "SettingsAppNumbers.ratio": " 0.5",
                "SettingsAppNumbers.pageCount": 6.6, "SettingsAppNumbers.unsignedLimit": "many",
                "SettingsAppNumbers.level": 7,
            ])
            let settings = SettingsAppNumberSettings(userDefaults: suite.another())
            #expect(settings.retryCount == 0)  // through validate:
            #expect(settings.scaleRatio == 0.5)
            #expect(settings.pageCount == 7)  // the slider's real, rounded
            #expect(settings.unsignedLimit == 8)
            #expect(settings.level == .high)
            #expect(Set(settings.ignoredSettingsAppValues.map(\.setting)) == ["unsignedLimit", "level"])
        }

        /// A number typed as the user's locale writes it: `0,5` where the decimal separator is a comma.
        /// What a save writes reads back the same there.
        @Test func aNumberTypedAsTheUsersLocaleWritesItIsTaken() throws {
            let first = SettingsAppNumberSettings(userDefaults: suite.userDefaults)
            first.retryCount = 5
            try first.synchronizeToUserDefaults()
            try SettingsAppControl.$userLocale.withValue(Locale(identifier: "de_DE")) {
                settingsAppWrites(["SettingsAppNumbers.ratio": "0,5", "SettingsAppNumbers.retryCount": "1.000"])
                let settings = SettingsAppNumberSettings(userDefaults: suite.another())
                #expect(settings.scaleRatio == 0.5)
                #expect(settings.retryCount == 1000)
                #expect(settings.ignoredSettingsAppValues.isEmpty)
                settings.scaleRatio = 12.345
                try settings.synchronizeToUserDefaults()
                #expect(suite.storedObject(forKey: "SettingsAppNumbers.ratio") as? String == "12.345")
                let reloaded = SettingsAppNumberSettings(userDefaults: suite.another())
                #expect(reloaded.scaleRatio == 12.345 && !reloaded.hasUnsavedChanges)
            }
            // Text no locale of the user reads is still refused.
            SettingsAppControl.$userLocale.withValue(Locale(identifier: "en_US")) {
                settingsAppWrites(["SettingsAppNumbers.ratio": "0,5"])
                let settings = SettingsAppNumberSettings(userDefaults: suite.another())
                #expect(settings.scaleRatio == 12.345)
                #expect(settings.ignoredSettingsAppValues.map(\.setting) == ["ratio"])
            }
        }

        @Test func resetToUserDefaultsTakesWhatTheSettingsAppWrote() throws {
            let settings = SettingsAppPageSettings(userDefaults: suite.userDefaults)
            settings.name = "Ann"
            try settings.synchronizeToUserDefaults()
            settingsAppWrites(["SettingsAppPage.name": "Cy"])
            try settings.resetToUserDefaults()
            #expect(settings.name == "Cy")
            #expect(settings.hasUnsavedChanges)
        }

        @Test func aLiveObjectTakesTheValuesWhenTheAppReturnsToTheForeground() throws {
            let settings = SettingsAppPageSettings(userDefaults: suite.userDefaults)
            settings.name = "Ann"
            try settings.synchronizeToUserDefaults()
            settingsAppWrites(["SettingsAppPage.name": "Di", "SettingsAppPage.dontDimScreen": true])
            NotificationCenter.default.post(name: SystemCloudEnvironment.willEnterForeground, object: nil)
            #expect(waitUntil { settings.name == "Di" && settings.dontDimScreen })
        }

        /// A Settings app value another writer loaded and saved is that writer's save to a live
        /// object (issue 46): taken by one that reloads, and kept, not reverted, by the next save of one
        /// that does not. (A look after that save finds no edit: the stored set's record of the shown
        /// keys holds the value already; a look before it, by the store watcher, takes it as an edit.)
        @Test func aSettingsAppValueAnotherWriterSavedReachesALiveObjectAsThatSave() throws {
            let reloading = SettingsAppPageSettings(userDefaults: suite.userDefaults)
            reloading.name = "Ann"
            try reloading.synchronizeToUserDefaults()
            reloading.reloadsWhenStoredSettingsChange = true
            let keeping = SettingsAppPageSettings(userDefaults: suite.another())
            settingsAppWrites(["SettingsAppPage.name": "Ed"])
            let otherWriter = SettingsAppPageSettings(userDefaults: suite.another())
            #expect(otherWriter.name == "Ed")
            otherWriter.notShown = 8
            try otherWriter.synchronizeToUserDefaults()
            // Taken by the reload of that save or, when the store watcher's look (its catch-up with
            // the directory) read the key before the save, as this object's own Settings app edit,
            // unsaved: either way its next save holds both writers' values.
            #expect(waitUntil { reloading.name == "Ed" })
            try reloading.synchronizeToUserDefaults()
            #expect(reloading.name == "Ed" && reloading.notShown == 8)
            // Likewise `keeping` may have seen the key before that save (on Apple's model, the change
            // notice of the Settings app's write starts a look), as its own edit.
            keeping.dontDimScreen = true
            try keeping.synchronizeToUserDefaults()
            #expect(keeping.name == "Ed" && keeping.notShown == 8 && keeping.dontDimScreen)
            #expect(suite.storedObject(forKey: "SettingsAppPage.name") as? String == "Ed")
        }

        @Test func theLaterOfAnAssignmentAndASettingsAppChangeWins() throws {
            let settings = SettingsAppPageSettings(userDefaults: suite.userDefaults)
            settings.name = "Ann"
            try settings.synchronizeToUserDefaults()
            // An assignment, then the Settings app: the app's value, seen at the save, is later.
            settings.name = "here"
            settingsAppWrites(["SettingsAppPage.name": "there"])
            try settings.synchronizeToUserDefaults()
            #expect(settings.name == "there")
            #expect(suite.storedObject(forKey: "SettingsAppPage.name") as? String == "there")
            // The Settings app, seen, then an assignment: the assignment is later, and stays.
            settingsAppWrites(["SettingsAppPage.name": "Settings"])
            try settings.resetToUserDefaults()
            #expect(settings.name == "Settings")
            settings.name = "app"
            NotificationCenter.default.post(name: SystemCloudEnvironment.willEnterForeground, object: nil)
            try settings.synchronizeToUserDefaults()
            #expect(settings.name == "app")
            #expect(suite.storedObject(forKey: "SettingsAppPage.name") as? String == "app")
            #expect(SettingsAppPageSettings(userDefaults: suite.another()).name == "app")
        }

        @Test func removingTheSetRemovesTheShownKeys() throws {
            let settings = SettingsAppPageSettings(userDefaults: suite.userDefaults)
            settings.name = "Ann"
            suite.userDefaults.set("kept", forKey: "SettingsAppPage.other")
            try settings.synchronizeToUserDefaults()
            #expect(keys.allSatisfy { suite.storedObject(forKey: $0) != nil })
            try settings.removeFromUserDefaults()
            #expect(keys.allSatisfy { suite.storedObject(forKey: $0) == nil })
            #expect(suite.storedObject(forKey: "SettingsAppPage.other") as? String == "kept")
            #expect(settings.name == "guest")
        }

        @Test func documentsSeeTheSetAsBefore() throws {
            let settings = SettingsAppPageSettings(userDefaults: suite.userDefaults)
            settings.name = "Ann"
            try settings.synchronizeToUserDefaults()
            let document = try #require(
                try JSONSerialization.jsonObject(with: settings.jsonRepresentation()) as? [String: Any])
            #expect(
                Set(document.keys) == ["$schemaVersion", "dontDimScreen", "soundLevel", "theme", "name", "notShown"])
        }
    }
}

/// A look at the Settings app's keys reads them outside the object's lock: what it found must
/// not land after a reset, a load or a save took the same values and the app assigned again.
/// A foreground notice of another suite, or the store watcher, can look in between.
@Suite struct SettingsAppStaleLookTests {
    let suite = TemporarySuite(inMemory: true)

    private func settingsAppWrites(_ name: String) {
        suite.another().set(name, forKey: "SettingsAppPage.name")
    }

    /// Runs `body` with an object of the suite that no notice looks at: a return to the foreground or
    /// a change of the process's defaults, which other tests post, starts a look at every live
    /// object, and would come between the looks these tests order. (It is out of the registry.)
    private func withObjectNoNoticeLooksAt(_ body: (SettingsAppPageSettings) throws -> Void) rethrows {
        let settings = SettingsAppPageSettings(userDefaults: suite.userDefaults)
        StoreRegistry.unregister(settings)
        defer { StoreRegistry.publish(settings) }
        try body(settings)
    }

    /// `settings` saved, its name then set to "Settings" by the Settings app, and a look that found it.
    private func lookAtWhatTheSettingsAppWrote(_ settings: SettingsAppPageSettings) throws -> SettingsAppBridge.Look {
        settings.name = "Ann"
        try settings.synchronizeToUserDefaults()
        settingsAppWrites("Settings")
        return try #require(settings.settingsApp.look(refresh: false))
    }

    /// A reset, or a save (made: a change), takes the Settings app's value; then the app assigns.
    @Test(arguments: ["reset", "save"])
    func aLookMadeBeforeAResetOrASaveDoesNotLandAfterTheNextAssignment(_ between: String) throws {
        try withObjectNoNoticeLooksAt { settings in
            let look = try lookAtWhatTheSettingsAppWrote(settings)
            if between == "reset" {
                try settings.resetToUserDefaults()
            } else {
                settings.soundLevel = 0.1
                try settings.synchronizeToUserDefaults()
            }
            #expect(settings.name == "Settings")
            settings.name = "app"
            #expect(!settings.settingsApp.apply(look))
            #expect(settings.name == "app")
        }
    }

    @Test func aLookDoesNotLandOverAnAssignmentMadeWhileItRead() throws {
        try withObjectNoNoticeLooksAt { settings in
            let look = try lookAtWhatTheSettingsAppWrote(settings)
            settings.name = "app"
            #expect(!settings.settingsApp.apply(look))
            #expect(settings.name == "app")
            // The next look reads after the assignment: the Settings app's value, seen later, wins.
            settings.settingsApp.takeWrittenValues(refresh: false)
            #expect(settings.name == "Settings")
        }
    }

    @Test func twoLooksThatFoundTheSameRefusedValueListItOnce() throws {
        try withObjectNoNoticeLooksAt { settings in
            try settings.synchronizeToUserDefaults()
            suite.another().set("sepia", forKey: "SettingsAppPage.theme")
            let first = try #require(settings.settingsApp.look(refresh: false))
            let second = try #require(settings.settingsApp.look(refresh: false))
            #expect(settings.settingsApp.apply(second))
            #expect(!settings.settingsApp.apply(first))
            #expect(settings.ignoredSettingsAppValues.map(\.setting) == ["theme"])
        }
    }

    @Test func aLookNobodyCameBetweenLands() throws {
        try withObjectNoNoticeLooksAt { settings in
            let look = try lookAtWhatTheSettingsAppWrote(settings)
            #expect(settings.settingsApp.apply(look))
            #expect(settings.name == "Settings")
            #expect(settings.hasUnsavedChanges)
            // Seen: the next look finds nothing new, and an assignment stays.
            #expect(settings.settingsApp.look(refresh: false) == nil)
            settings.name = "app"
            settings.settingsApp.takeWrittenValues(refresh: false)
            #expect(settings.name == "app")
        }
    }

    @Test func looksOnAnotherThreadNeverPutAnOlderValueOverAnAssignment() throws {
        let settings = SettingsAppPageSettings(userDefaults: suite.userDefaults)
        settings.name = "Ann"
        try settings.synchronizeToUserDefaults()
        let rounds = 500
        let looks = Protected(0)
        let done = Protected(false)
        let lost = Protected<[String]>([])
        Threads.run(2) { thread in
            if thread == 1 {
                // Looks at the keys as fast as it can, as the foreground notice and the watcher do.
                while !done.withLock({ $0 }) {
                    settings.settingsApp.takeWrittenValues(refresh: false)
                    looks.withLock { $0 += 1 }
                }
                return
            }
            for round in 0..<rounds {
                settingsAppWrites("settings \(round)")
                do { try settings.resetToUserDefaults() } catch { lost.withLock { $0.append("\(error)") } }
                settings.name = "app \(round)"
                // Two whole looks after the assignment: the one in flight has ended.
                let start = looks.withLock { $0 }
                while looks.withLock({ $0 }) < start + 2 { sched_yield() }
                if settings.name != "app \(round)" {
                    lost.withLock { $0.append("round \(round): \(settings.name) over app \(round)") }
                }
            }
            done.withLock { $0 = true }
        }
        #expect(lost.withLock { $0 }.isEmpty, "\(lost.withLock { $0.prefix(3) })")
    }
}

/// Threads assigning, saving, reloading and hearing the foreground notice while the Settings app
/// writes: nothing deadlocks, and afterwards the object, the set and the shown key agree (run
/// under ThreadSanitizer by `swift test --sanitize=thread`).
@Suite(.serialized) struct SettingsAppConcurrencyTests {
    @Test func assignmentsSavesAndSettingsAppWritesOnThreads() throws {
        let suite = TemporarySuite()
        let settings = SettingsAppPageSettings(userDefaults: suite.userDefaults)
        settings.name = "start"
        try settings.synchronizeToUserDefaults()
        let rounds = 40
        let failures = Protected<[String]>([])
        Threads.run(4) { thread in
            for round in 0..<rounds {
                switch thread {
                case 0: settings.name = "app \(round)"
                case 1:
                    do { try settings.synchronizeToUserDefaults() } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                case 2:
                    let settingsApp = suite.another()
                    suite.another().set("settings \(round)", forKey: "SettingsAppPage.name")
                    settingsApp.set(Double(round) / Double(rounds), forKey: "SettingsAppPage.soundLevel")
                default:
                    NotificationCenter.default.post(name: SystemCloudEnvironment.willEnterForeground, object: nil)
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        // Whatever won, one last save leaves the three in agreement.
        settings.dontDimScreen.toggle()
        #expect(waitUntil { (try? settings.synchronizeToUserDefaults()) != nil && !settings.hasUnsavedChanges })
        let name = settings.name
        #expect(suite.storedObject(forKey: "SettingsAppPage.name") as? String == name)
        #expect(SettingsAppPageSettings(userDefaults: suite.another()).name == name)
    }
}

import Foundation
import Observation
import Synchronization
import Testing

@testable import AppSettings

/// Records what a closure is told, from any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    var values: [Value] { storage.withLock { $0 } }
    func record(_ value: Value) { storage.withLock { $0.append(value) } }
}

/// Collects the notifications of one object while alive.
final class NotificationRecorder: @unchecked Sendable {
    let names = Recorder<[String]>()
    /// Written once in `init`.
    private let observer: any NSObjectProtocol

    init(_ object: AppSettingsObject, name: Notification.Name = AppSettingsObject.didChangeNotification) {
        let names = self.names
        observer = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) {
            names.record($0.userInfo?[AppSettingsObject.changedSettingNamesKey] as? [String] ?? [])
        }
    }

    deinit {
        NotificationCenter.default.removeObserver(observer)
    }
}

@Suite("Observation", .capturedLibraryLog)
struct ObservationTests {
    let suite = TemporarySuite.forSettings()

    /// Whether `change` makes an observation of `read` fire.
    private func fires(reading read: @escaping () -> Void, when change: () throws -> Void) rethrows -> Bool {
        let fired = Recorder<Bool>()
        withObservationTracking {
            read()
        } onChange: {
            fired.record(true)
        }
        try change()
        return !fired.values.isEmpty
    }

    @Test func observationIsPerSetting() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        #expect(fires(reading: { _ = settings.soundLevel }, when: { settings.soundLevel = 0.9 }))
        #expect(!fires(reading: { _ = settings.soundLevel }, when: { settings.theme = .dark }))
        #expect(!fires(reading: { _ = settings.soundLevel }, when: { settings.soundLevel = 0.9 }))
    }

    @Test func observationSeesResetsUpdatesAndLoads() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        let writer = MySettings(userDefaults: suite.another())
        writer.soundLevel = 0.2
        try writer.synchronizeToUserDefaults()
        #expect(try fires(reading: { _ = settings.soundLevel }, when: { try settings.resetToUserDefaults() }))
        #expect(fires(reading: { _ = settings.soundLevel }, when: { settings.resetToDeveloperDefaults() }))
        #expect(
            try fires(reading: { _ = settings.soundLevel }, when: { try settings.update(from: ["soundLevel": 1.0]) }))
        #expect(!fires(reading: { _ = settings.soundLevel }, when: { settings.theme = .system }))
    }

    /// A whole-set replacement tells an observer once, at its end, with its one notification
    /// (issue 46): one that registers again in `onChange` was told twice, as the values were taken
    /// and at the end.
    @Test func aReplacementTellsAnObserverThatRegistersAgainOnce() {
        let settings = MySettings(userDefaults: suite.userDefaults)
        settings.soundLevel = 0.2
        settings.theme = .dark
        let calls = Protected(0)
        @Sendable func observe() {
            withObservationTracking {
                _ = settings.soundLevel
            } onChange: {
                calls.withLock { $0 += 1 }
                observe()
            }
        }
        observe()
        settings.resetToDeveloperDefaults()
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func aChangeOnAnotherThreadIsObserved() async {
        let settings = MySettings(userDefaults: suite.userDefaults)
        await confirmation { confirmed in
            withObservationTracking {
                _ = settings.theme
            } onChange: {
                confirmed()
            }
            Threads.run(1) { _ in settings.theme = .dark }
        }
        #expect(settings.theme == .dark)
    }

    @Test func notificationsNameTheChangedSettings() throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        let recorder = NotificationRecorder(settings)
        settings.theme = .dark
        settings.theme = .dark
        settings.soundLevel = 0.3
        #expect(recorder.names.values == [["theme"], ["soundLevel"]])
        try settings.synchronizeToUserDefaults()
        #expect(recorder.names.values.count == 2)
        settings.theme = .system
        settings.soundLevel = 0.9
        try settings.resetToUserDefaults()
        #expect(recorder.names.values.last == ["soundLevel", "theme"])
        #expect(recorder.names.values.count == 5)
        settings.resetToDeveloperDefaults()
        #expect(recorder.names.values.last == ["soundLevel", "theme"])
        #expect(recorder.names.values.count == 6)
        try settings.update(from: ["dontDimScreen": true, "constellation": "Lyra", "theme": "light"])
        #expect(recorder.names.values.last == ["dontDimScreen", "constellation"])
        try settings.removeFromUserDefaults()
        #expect(recorder.names.values.last == ["dontDimScreen", "constellation"])
        #expect(recorder.names.values.count == 8)
        #expect(
            recorder.names.values == [
                ["theme"], ["soundLevel"], ["theme"], ["soundLevel"], ["soundLevel", "theme"], ["soundLevel", "theme"],
                ["dontDimScreen", "constellation"], ["dontDimScreen", "constellation"],
            ])
    }

    @Test func changesReachSeveralConsumers() async throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        let first = settings.changes
        let second = settings.changes
        settings.theme = .dark
        settings.resetToDeveloperDefaults()
        var firstIterator = first.makeAsyncIterator()
        var secondIterator = second.makeAsyncIterator()
        #expect(await firstIterator.next() == .settingsChanged(["theme"]))
        #expect(await firstIterator.next() == .settingsChanged(["theme"]))
        #expect(await secondIterator.next() == .settingsChanged(["theme"]))
    }

    @Test func valuesOfASettingStartWithTheCurrentValue() async throws {
        let settings = MySettings(userDefaults: suite.userDefaults)
        // The root is inferred, as for source(of:) (issue 39): `\.soundLevel` did not compile.
        let values = settings.values(of: \.soundLevel)
        var iterator = values.makeAsyncIterator()
        #expect(await iterator.next() == 0.5)
        settings.theme = .dark
        settings.soundLevel = 0.8
        #expect(await iterator.next() == 0.8)
    }

    @Test func changeSequencesDoNotKeepTheObjectAlive() async {
        weak var weakSettings: MySettings?
        var stream: AsyncStream<AppSettingsChange>?
        var values: AsyncStream<Float>?
        do {
            let settings = MySettings(userDefaults: suite.userDefaults)
            weakSettings = settings
            stream = settings.changes
            values = settings.values(of: \MySettings.soundLevel)
        }
        // Gone once no other thread holds it: a test running alongside may hold it for a moment
        // (the store registry hands out the live objects of a key, and this key is shared).
        #expect(waitUntil { weakSettings == nil })
        var iterator = stream?.makeAsyncIterator()
        #expect(await iterator?.next() == nil)
        var valueIterator = values?.makeAsyncIterator()
        #expect(await valueIterator?.next() == 0.5)
        #expect(await valueIterator?.next() == nil)
    }

    /// What `changes` promises: "A consumer that falls behind keeps the newest 64 events and
    /// never blocks a setter." With a sequence nobody reads, 10,000 assignments on another thread
    /// all finish (each visible at once) well before a deadline; once the object goes away the
    /// sequence ends, and reading it yields exactly 64 events: the last 64, in order.
    @Test func aSlowConsumerNeverBlocksASetter() async throws {
        let count = 10_000
        var settings: MySettings? = MySettings(userDefaults: suite.userDefaults)
        let unread = try #require(settings).changes
        // Every fifth assignment changes another setting, so each window of 64 events has its own
        // pattern of names: the newest 64 differ from the oldest and from any other window.
        func name(ofAssignment index: Int) -> String { index.isMultiple(of: 5) ? "dontDimScreen" : "constellation" }
        let mismatches = Mutex(0)
        // The thread holds the object only while it runs, so that it can go away afterwards.
        let setter = Threads(1) { [weak settings] _ in
            guard let settings else { return }
            for index in 0..<count {
                if index.isMultiple(of: 5) {
                    settings.dontDimScreen.toggle()
                } else {
                    settings.constellation = "star \(index)"
                    if settings.constellation != "star \(index)" { mismatches.withLock { $0 += 1 } }
                }
            }
        }
        // A blocked setter would never finish; 60 s is far above the milliseconds this takes.
        let completed = setter.waitUntilFinished(seconds: 60)
        #expect(completed, "the setter was blocked by an unread sequence")
        guard completed else { return }
        #expect(mismatches.withLock { $0 } == 0)
        #expect(settings?.constellation == "star \(count - 1)")
        settings = nil
        var events: [AppSettingsChange] = []
        for await event in unread { events.append(event) }
        #expect(events.count == 64)
        let newest = (count - 64)..<count
        #expect(events == newest.map { .settingsChanged([name(ofAssignment: $0)]) })
    }

    @Test func anotherInstanceIsToldWhenTheStoredSetChanges() async throws {
        let reader = MySettings(userDefaults: suite.userDefaults)
        let writer = MySettings(userDefaults: suite.another())
        let notified = NotificationRecorder(reader, name: AppSettingsObject.storedSettingsDidChangeNotification)
        let writerNotified = NotificationRecorder(writer, name: AppSettingsObject.storedSettingsDidChangeNotification)
        var events = reader.changes.makeAsyncIterator()
        reader.soundLevel = 0.1
        writer.theme = .dark
        // A set no other test stores (see anEqualSetInAnotherSuiteIsNotToldOfAWrite).
        writer.constellation = suite.name
        try writer.synchronizeToUserDefaults()
        #expect(notified.names.values.count == 1)
        #expect(writerNotified.names.values.isEmpty)
        #expect(await events.next() == .settingsChanged(["soundLevel"]))
        #expect(await events.next() == .storedSettingsChanged)
        // It keeps its own unsaved change until it decides to reload.
        #expect(reader.soundLevel == 0.1)
        #expect(reader.theme == .light)
        #expect(reader.hasUnsavedChanges)
        try reader.resetToUserDefaults()
        #expect(reader.theme == .dark)
    }

    /// `storedSettingsChanged` is for "another instance bound to the same `UserDefaults` and key".
    /// Two suites that store equal sets (here: only `theme = .dark`) are not one store: every
    /// archive carries its own `$writeID`, so equal settings are not equal bytes.
    @Test func anEqualSetInAnotherSuiteIsNotToldOfAWrite() throws {
        let otherSuite = TemporarySuite()
        let here = MySettings(userDefaults: suite.userDefaults)
        here.theme = .dark
        try here.synchronizeToUserDefaults()
        let told = NotificationRecorder(here, name: AppSettingsObject.storedSettingsDidChangeNotification)
        let elsewhere = MySettings(userDefaults: otherSuite.userDefaults)
        elsewhere.theme = .dark
        try elsewhere.synchronizeToUserDefaults()
        #expect(told.names.values.isEmpty, "a write to another suite was reported")
    }

    @Test func onlyObjectsOfTheSameSuiteAreToldAndRemovalTellsThem() throws {
        let otherSuite = TemporarySuite()
        let sameSuite = MySettings(userDefaults: suite.another())
        let elsewhere = MySettings(userDefaults: otherSuite.userDefaults)
        let writer = MySettings(userDefaults: suite.userDefaults)
        // The other suite holds a set with the same values: the same settings, not the same store.
        elsewhere.theme = .dark
        try elsewhere.synchronizeToUserDefaults()
        let told = NotificationRecorder(sameSuite, name: AppSettingsObject.storedSettingsDidChangeNotification)
        let notTold = NotificationRecorder(elsewhere, name: AppSettingsObject.storedSettingsDidChangeNotification)
        writer.theme = .dark
        try writer.synchronizeToUserDefaults()
        #expect(told.names.values.count == 1)
        try writer.removeFromUserDefaults()
        #expect(told.names.values.count == 2)
        #expect(notTold.names.values.isEmpty, "same key, another suite")
    }
}

import Foundation
import Observation

// Where a setting's value comes from: `source(of:)` and what it reads.

extension SettingsForms {
    /// Where the setting at `indexPath` (positions from this object down through nested ones)
    /// gets its value.
    func settingSource(at indexPath: [Int]) -> SettingSource {
        var object: AppSettingsObject = self.object
        for index in indexPath.dropLast() {
            guard let nested = object.slots[index].nestedObject else { return .developerDefault }
            object = nested
        }
        guard let index = indexPath.last else { return .developerDefault }
        let slot = object.slots[index]
        // Observed like the setting itself: a change of override is announced for it.
        object._registrar.access(object, keyPath: slot.observationKeyPath)
        if let override = object._state.withLock({ _ in slot.overrideSource }) { return override }
        if object.ledger.changedSinceSave(index) { return .stored }
        // Stored when what the set holds since its last load or save has it.
        var names = [slot.name]
        var current = object
        while let parent = current.announcer.parent {
            guard let holding = parent.slots.first(where: { $0.nestedObject === current }) else { break }
            names.insert(holding.name, at: 0)
            current = parent
        }
        let (base, loadError) = (current.ledger.storedBase.values, current.ledger.lastLoadError)
        // A stored value the load could not use left the developer default in place.
        if loadError?.unusedStoredSettings.contains(names.joined(separator: ".")) == true { return .developerDefault }
        var entries = base
        for name in names.dropLast() {
            guard case .dictionary(let inner)? = entries[name] else { return .developerDefault }
            entries = inner
        }
        return entries[slot.name] == nil ? .developerDefault : .stored
    }

    /// The positions of the setting `read` reads, from this object's class down through nested
    /// objects: found on a scratch copy by Observation (the setting whose change ends a tracking
    /// of `read`), once per class and key path.
    func settingIndexPath(of keyPath: AnyKeyPath, read: (AppSettingsObject) -> Void) -> [Int]? {
        let cacheKey = KeyPathCache.Key(type: ObjectIdentifier(type(of: object)), keyPath: keyPath)
        if let known = KeyPathCache.entries.withLock({ $0[cacheKey] }) { return known }
        // A caller's tracking (a SwiftUI body) sees the search's reads of the scratch copy, but
        // not its changes: a tracking starts to observe when its closure has returned, and the
        // scratch copy is gone by then.
        let found = searchSetting(read: read)
        KeyPathCache.entries.withLock { $0[cacheKey] = found }
        return found
    }

    /// The positions of the setting `read` reads on a scratch copy of this object's class.
    private func searchSetting(read: (AppSettingsObject) -> Void) -> [Int]? {
        let scratch = ledger.makeScratchCopy(copyingValues: false)
        for (object, slot, path) in scratch.forms.settingsDeepestFirst(path: []) {
            let ended = Protected(false)
            withObservationTracking {
                read(scratch)
            } onChange: {
                ended.withLock { $0 = true }
            }
            object._registrar.willSet(object, keyPath: slot.observationKeyPath)
            if ended.withLock({ $0 }) { return path }
        }
        return nil
    }

    /// Every setting with its object and position path, a nested object's settings before the
    /// setting that holds it.
    private func settingsDeepestFirst(path: [Int]) -> [(AppSettingsObject, AnySettingSlot, [Int])] {
        var result: [(AppSettingsObject, AnySettingSlot, [Int])] = []
        for slot in slots {
            if let nested = slot.nestedObject { result += nested.forms.settingsDeepestFirst(path: path + [slot.index]) }
            result.append((object, slot, path + [slot.index]))
        }
        return result
    }
}

/// The setting each key path reads, by class (key paths are immutable, hence `@unchecked`).
private enum KeyPathCache {
    struct Key: Hashable, @unchecked Sendable {
        var type: ObjectIdentifier
        var keyPath: AnyKeyPath
    }

    static let entries = Protected<[Key: [Int]?]>([:])
}

extension AppSettingsKeyPathMembers {
    /// Where the value of one setting comes from: an override (managed configuration, a launch
    /// argument, an environment variable), the user's stored value, or the developer default.
    ///
    /// ```swift
    /// settings.source(of: \.soundLevel)              // .launchArgument after -MyAppsSettings.soundLevel 0.3
    /// settings.source(of: \MySettings.audio.volume)  // a setting of a nested settings object
    /// ```
    ///
    /// ``SettingSource`` lists the sources in the order they win. A key path that reads no
    /// setting (a plain property) is ``SettingSource/developerDefault``; one that reads several
    /// (a computed property) reports the first it reads that is found. Read in a SwiftUI body or
    /// `withObservationTracking`, it is observed like the setting: an override that comes, goes
    /// or changes is announced. The first call for a class and key path finds its setting on a
    /// scratch copy (microseconds); later calls look it up.
    public func source<Value: SettingValue>(of keyPath: KeyPath<Self, Value>) -> SettingSource {
        let path = forms.settingIndexPath(of: keyPath) { object in
            // `settingIndexPath` reads a scratch copy of this object's own class.
            _ = unsafeDowncast(object, to: Self.self)[keyPath: keyPath]
        }
        guard let path else { return .developerDefault }
        return forms.settingSource(at: path)
    }
}

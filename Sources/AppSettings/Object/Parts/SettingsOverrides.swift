import Foundation
import Observation

// Overrides put a value over a setting without saving it: the user's value stays in the slot and
// readers see the override's (`SettingSlot.setOverride`). A live object that is not nested looks
// for them at initialization and when managed configuration changes; nested objects get theirs
// from it, by their place in the set (`-MySettings.audio.volume`).

/// What a live object that is not nested found of overrides: the ``SettingsOverrides``' part of
/// the object's state (`ObjectState.overrides`), made and read only in this file.
struct OverrideState {
    /// The sources it took at initialization.
    fileprivate let sources: OverrideSources
    /// What managed configuration held for it at the last look.
    fileprivate let managed: ManagedConfigurationSource.Read
    /// The overrides it could not use.
    fileprivate let ignored: [IgnoredOverride]
}

/// What one application of overrides did, for what is done after the locks are released.
private struct AppliedOverrides {
    var ignored: [IgnoredOverride]
    /// The objects and positions of the settings whose value readers see changed.
    var changes: [(object: AppSettingsObject, indices: [Int])]
    var previouslyIgnored: [IgnoredOverride]
}

/// One value found for a setting in one source.
private struct OverrideCandidate {
    var source: SettingSource
    var origin: String
    var text: String
    var value: StoredValue
}

extension AppSettingsObject {
    /// The overrides that were found but not used: their values do not parse as the setting's
    /// type or do not fit it (`999` for an `Int8`), they name no setting, or the managed
    /// configuration cannot be read. Each is logged once per process.
    ///
    /// The setting keeps the value of the next source down (see ``SettingSource``). The list is
    /// made at initialization and again when managed configuration changes; a nested settings
    /// object returns the list of the object it is nested in.
    ///
    /// ```swift
    /// for ignored in settings.ignoredOverrides { print(ignored) }
    /// // launch argument override -MyAppsSettings.volume for 'volume' = 999 ignored: expected Int8, found '999' …
    /// ```
    public final var ignoredOverrides: [IgnoredOverride] {
        if let parent = announcer.parent { return parent.ignoredOverrides }
        return overrides.ignored
    }

    /// This object's overrides: finding, applying and clearing them (``SettingsOverrides``).
    var overrides: SettingsOverrides { SettingsOverrides(object: self) }
}

/// The overrides part of an object: finds each setting's override in the sources, puts it over
/// the setting and records what it ignored (`ObjectState.overrides`).
struct SettingsOverrides: ObjectPart {
    let object: AppSettingsObject

    /// The overrides the last look at the sources ignored (the public `ignoredOverrides`).
    var ignored: [IgnoredOverride] {
        _state.withLock { $0.overrides?.ignored ?? [] }
    }

    /// The object this one is nested in, through every level; itself when it is not nested.
    var topmostObject: AppSettingsObject {
        var object = object
        while let parent = object.announcer.parent { object = parent }
        return object
    }

    // MARK: Finding and applying overrides

    /// Looks for overrides of this new object (not yet published) in the sources of this process
    /// (or of the test running), and starts watching managed configuration.
    func applyOverridesAtInitialization() {
        let sources = OverrideSources.forNewObject
        applyOverrides(sources: sources, managed: readManagedConfiguration(sources), announcing: false, force: false)
        ManagedConfigurationWatcher.start()
    }

    /// Takes the override sources of `original`, whose copy this unpublished object is.
    func applyOverrides(of original: AppSettingsObject) {
        guard let state = original._state.withLock({ $0.overrides }) else { return }
        applyOverrides(sources: state.sources, managed: state.managed, announcing: false, force: false)
    }

    /// Reads managed configuration again and, when it changed, applies the overrides again and
    /// tells observers of every setting whose value changed.
    func refreshManagedConfiguration() {
        guard let sources = _state.withLock({ $0.overrides?.sources }) else { return }
        applyOverrides(sources: sources, managed: nil, announcing: isPublished, force: true)
    }

    /// ``refreshManagedConfiguration()``, when what managed configuration holds for this object
    /// differs from what it found last: read without the object's locks, so an object whose
    /// configuration did not change never waits for its save in flight.
    func refreshManagedConfigurationIfChanged() {
        guard let overrides = _state.withLock({ $0.overrides }) else { return }
        guard readManagedConfiguration(overrides.sources) != overrides.managed else { return }
        refreshManagedConfiguration()
    }

    /// Applies the overrides found last again (a nested settings object was replaced).
    func reapplyOverrides() {
        guard let state = _state.withLock({ $0.overrides }) else { return }
        applyOverrides(sources: state.sources, managed: state.managed, announcing: isPublished, force: true)
    }

    /// Removes every override of this object and its nested objects, without telling observers:
    /// for an object being nested, which takes its parent's.
    func clearOverrides() {
        _state.withLock { state in
            state.overrides = nil
            for slot in slots where slot.overrideSource != nil { _ = slot.removeOverride() }
        }
        for slot in slots { slot.nestedObject?.overrides.clearOverrides() }
    }

    private func readManagedConfiguration(_ sources: OverrideSources) -> ManagedConfigurationSource.Read {
        sources.managed.read(key: userDefaultsKey, domain: store.managedConfigurationDomain)
    }

    /// Finds each setting's override (the first of managed configuration, launch argument and
    /// environment whose value fits), puts it over the setting and records what was ignored.
    /// `managed`: `nil` reads it now, and does nothing when it did not change since the last
    /// look. `force`: also when no source has anything (to remove overrides found before).
    private func applyOverrides(
        sources: OverrideSources,
        managed given: ManagedConfigurationSource.Read?,
        announcing: Bool,
        force: Bool
    ) {
        // One application at a time, reading managed configuration under the same lock, so the
        // last one read is the last one applied.
        let applied = HeldLocks.holding {
            object._synchronization.withLock { _ -> AppliedOverrides? in
                let managed = given ?? readManagedConfiguration(sources)
                if given == nil, managed == _state.withLock({ $0.overrides?.managed }) { return nil }
                var (candidates, ignored) = overrideCandidates(sources: sources, managed: managed)
                var changes: [(object: AppSettingsObject, indices: [Int])] = []
                if force || !candidates.isEmpty {
                    resolveOverrides(path: "", candidates: &candidates, ignored: &ignored, changes: &changes)
                }
                let previous = _state.withLock { state in
                    defer { state.overrides = OverrideState(sources: sources, managed: managed, ignored: ignored) }
                    return state.overrides?.ignored ?? []
                }
                return AppliedOverrides(ignored: ignored, changes: changes, previouslyIgnored: previous)
            }
        }
        guard let applied else { return }
        for problem in applied.ignored where !applied.previouslyIgnored.contains(problem) {
            let message = "\(type(of: object)): \(problem)"
            if IgnoredOverrideLog.isNew(message) { Log.error(message) }
        }
        guard announcing else { return }
        for (object, indices) in applied.changes {
            object.announcer.announce(indices, propagatesToParent: false, hidingOverridden: false)
        }
    }

    /// The values the sources hold for this set's settings, by setting path, in the order they
    /// win (``OverrideSources/precedence``); and what names no setting or cannot be read.
    private func overrideCandidates(
        sources: OverrideSources,
        managed: ManagedConfigurationSource.Read
    ) -> ([String: [OverrideCandidate]], [IgnoredOverride]) {
        var ignored: [IgnoredOverride] = []
        let argumentPrefix = object.binding.key.argumentKey(path: "")
        let entries = sources.entries(for: object.binding.key)
        let (arguments, environment) = (entries.arguments, entries.environment)
        var managedEntries: [String: StoredValue] = [:]
        var managedOrigin = ""
        switch managed {
        case .none: break
        case .entries(let entries, let origin): (managedEntries, managedOrigin) = (entries, origin)
        case .unreadable(let origin, let value, let reason):
            ignored.append(IgnoredOverride(setting: "", source: .managed, origin: origin, value: value, reason: reason))
        }
        // The common case, nothing for this set: the settings are not even walked.
        guard !arguments.isEmpty || !environment.isEmpty || !managedEntries.isEmpty else { return ([:], ignored) }

        var leaves: [String] = []
        var nested: Set<String> = []
        collectOverridablePaths(prefix: "", leaves: &leaves, nested: &nested)
        let leafSet = Set(leaves)
        var candidates: [String: [OverrideCandidate]] = [:]
        func unknown(_ path: String, _ source: SettingSource, _ origin: String, _ value: String, _ hint: String) {
            let reason =
                nested.contains(path)
                ? "'\(path)' is a nested settings object: \(hint)" : "no setting is stored as '\(path)'"
            ignored.append(IgnoredOverride(setting: path, source: source, origin: origin, value: value, reason: reason))
        }
        func addManaged(_ entries: [String: StoredValue], prefix: String) {
            // `$`-names are the inspector's own (`$schemaVersion`): a dump pasted whole is fine.
            for (name, value) in entries.sorted(by: { $0.key < $1.key }) where !name.hasPrefix("$") {
                let path = prefix + name
                if nested.contains(path), case .dictionary(let inner) = value {
                    addManaged(inner, prefix: path + ".")
                } else if leafSet.contains(path) {
                    let candidate = OverrideCandidate(
                        source: .managed, origin: managedOrigin, text: value.overrideDescription, value: value)
                    candidates[path, default: []].append(candidate)
                } else {
                    unknown(
                        path, .managed, managedOrigin, value.overrideDescription,
                        "expected a dictionary of its settings")
                }
            }
        }
        addManaged(managedEntries, prefix: "")
        for (key, text) in arguments {
            let path = String(key.dropFirst(argumentPrefix.count))
            guard leafSet.contains(path) else {
                unknown(path, .launchArgument, "-" + key, text, "give its settings one by one (-\(key).<name>)")
                continue
            }
            candidates[path, default: []].append(
                OverrideCandidate(source: .launchArgument, origin: "-" + key, text: text, value: .string(text)))
        }
        if !environment.isEmpty {
            // Names that match no setting are left alone: they may be another set's whose postfix
            // starts the same way.
            var paths: [String: String] = [:]
            for leaf in leaves { paths[object.binding.key.environmentName(path: leaf)] = leaf }
            for (name, text) in environment {
                guard let path = paths[name] else { continue }
                candidates[path, default: []].append(
                    OverrideCandidate(source: .environment, origin: name, text: text, value: .string(text)))
            }
        }
        // Each setting's candidates in the order they win: the one rule of precedence.
        for path in candidates.keys { candidates[path]?.sort { $0.source.overrideRank < $1.source.overrideRank } }
        return (candidates, ignored)
    }

    /// The paths of the settings that can be overridden (all but `const` ones), and of the
    /// nested settings objects.
    private func collectOverridablePaths(prefix: String, leaves: inout [String], nested: inout Set<String>) {
        for slot in slots where !slot.isConstant {
            let path = prefix + slot.name
            if let object = slot.nestedObject {
                nested.insert(path)
                object.overrides.collectOverridablePaths(prefix: path + ".", leaves: &leaves, nested: &nested)
            } else {
                leaves.append(path)
            }
        }
    }

    /// Converts and validates each setting's candidates in order (outside the lock: `validate:`
    /// is the app's code), then puts the first that fits over the setting, or removes the
    /// override of a setting that has none left, under the lock.
    private func resolveOverrides(
        path prefix: String,
        candidates: inout [String: [OverrideCandidate]],
        ignored: inout [IgnoredOverride],
        changes: inout [(object: AppSettingsObject, indices: [Int])]
    ) {
        var decided: [(slot: AnySettingSlot, value: Any, source: SettingSource)?] = []
        var cleared: [AnySettingSlot] = []
        for slot in slots where !slot.isConstant {
            let path = prefix + slot.name
            if let nested = slot.nestedObject {
                nested.overrides.resolveOverrides(
                    path: path + ".", candidates: &candidates, ignored: &ignored, changes: &changes)
                continue
            }
            var chosen: (slot: AnySettingSlot, value: Any, source: SettingSource)?
            for candidate in candidates.removeValue(forKey: path) ?? [] {
                do {
                    chosen = (slot, try slot.overrideValue(from: candidate.value), candidate.source)
                    break
                } catch {
                    ignored.append(
                        IgnoredOverride(
                            setting: path, source: candidate.source, origin: candidate.origin, value: candidate.text,
                            reason: "\(error)"))
                }
            }
            if let chosen { decided.append(chosen) } else { cleared.append(slot) }
        }
        let changed = _state.withLock { _ in
            var changed: [Int] = []
            for case (let slot, let value, let source)? in decided where slot.setOverride(value, source: source) {
                changed.append(slot.index)
            }
            for slot in cleared where slot.overrideSource != nil && slot.removeOverride() {
                changed.append(slot.index)
            }
            return changed.sorted()
        }
        if !changed.isEmpty { changes.append((object, changed)) }
    }
}

/// What was logged of ignored overrides: each once per process, however many objects of the
/// set are created.
private enum IgnoredOverrideLog {
    private static let logged = Protected<Set<String>>([])

    static func isNew(_ message: String) -> Bool {
        logged.withLock { $0.insert(message).inserted }
    }
}

extension StoredValue {
    /// A managed value as text, for ``IgnoredOverride/value``.
    var overrideDescription: String {
        if case .string(let text) = self { return text }
        if case .numberText(let text) = self { return text }
        return String(describing: propertyListValue ?? "nil")
    }
}

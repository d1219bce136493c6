import Foundation

// Nested settings objects: a `@Setting` whose value is a settings object is stored inside its
// parent's archive, and its changes make the parent unsaved.

extension Announcer {
    /// The object this one is nested in, if any.
    var parent: AppSettingsObject? {
        _state.withLock { $0.announcements.parent?.object }
    }

    /// Makes this object a nested setting of `parent`: stored in the parent's archive, and its
    /// changes make the parent unsaved.
    func embed(in parent: AppSettingsObject) {
        let wasStandalone = _state.withLock { $0.announcements.embed(in: parent) }
        if wasStandalone {
            // Overrides are looked up by the place in the parent's set, not under its own key.
            overrides.clearOverrides()
            if isPublished { StoreRegistry.unregister(object) }
        }
    }

    /// A nested object changed: this object has unsaved changes in the setting holding it.
    /// Observers are told when readers see the change (`seen`: not only user's values under
    /// overrides).
    func nestedObjectDidChange(_ nested: AppSettingsObject, seen: Bool) {
        guard let slot = slots.first(where: { $0.nestedObject === nested }) else { return }
        ledger.recordChange(of: [slot.index])
        if seen {
            announce([slot.index])
        } else if let parent = embeddingParent {
            parent.announcer.nestedObjectDidChange(object, seen: false)
        }
    }
}

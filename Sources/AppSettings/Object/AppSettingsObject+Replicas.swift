import Foundation

extension SettingsLedger {
    /// The replicas in the object's reconciliations now (``SettingsReplica``): the Settings app's
    /// keys when the class shows settings, the cloud store when it syncs settings. `replacement`
    /// takes the place of the replica with the same record (a pull's, which carries its notice).
    func replicas(replacing replacement: (any SettingsReplica)? = nil) -> [any SettingsReplica] {
        var replicas: [any SettingsReplica] = []
        if settingsApp.showsAny { replicas.append(SettingsAppReplica(object: object)) }
        if slots.contains(where: \.syncs) {
            replicas.append(CloudReplica(object: object, sync: object.syncCoordinator.attachedSync))
        }
        guard let replacement else { return replicas }
        return replicas.filter { $0.recordField != replacement.recordField } + [replacement]
    }
}

// Apple platforms: a Darwin notification (notify(3)) per suite and key, posted after every write
// and observed while a live object of the key exists. Registered with `notify_register_dispatch`
// on the library's own queue, so that processes without a running main run loop (command-line
// tools, daemons, a test host blocked on its main thread) are told too.
#if canImport(Darwin) || APPLE_STAND_INS
    import Foundation
    #if canImport(Darwin)
        import Darwin
    #else
        import AppleStandIns
    #endif

    extension StoreWatcher {
        static func startWatching(_ store: SettingsStore) {
            guard let domain = store.preferencesDomain else { return }
            DarwinNotices.retain(domain.noticeName(forKey: store.key))
        }

        static func stopWatching(_ store: SettingsStore) {
            guard let domain = store.preferencesDomain else { return }
            DarwinNotices.release(domain.noticeName(forKey: store.key))
        }

        /// Tells every process observing the key and suite (this one too) that it was written.
        static func announceWrite(to store: SettingsStore) {
            guard let domain = store.preferencesDomain else { return }
            DarwinNotices.post(domain.noticeName(forKey: store.key))
        }

        /// The notice `name` arrived: reported for the stores it names, each re-reading what it
        /// holds. (This app's stores of suites whose names are not known share a notice by key;
        /// each reads its own suite.)
        static func noticeArrived(_ name: String) {
            report(
                Change(
                    concerns: { $0.preferencesDomain?.noticeName(forKey: $0.key) == name },
                    contents: { store in
                        do {
                            guard case .data(let data)? = try store.read(refresh: true)?.object else { return .nothing }
                            return .bytes(data)
                        } catch {
                            return .unreadable
                        }
                    }
                ))
        }
    }

    /// The process's registrations with the notification center, counted by live objects.
    enum DarwinNotices {
        /// Where notices are handled: one serial queue of the library's.
        private static let queue = DispatchQueue(label: "AppSettings.store-notices", qos: .utility)

        private struct Registration {
            /// `notify_register_dispatch`'s token; `nil` when registering failed.
            var token: Int32?
            var objects: Int
        }

        private static let registrations = Protected<[String: Registration]>([:])

        /// Registers for `name` with the first live object that needs it.
        static func retain(_ name: String) {
            let failure = registrations.withLock { registrations -> UInt32? in
                if registrations[name] != nil {
                    registrations[name]?.objects += 1
                    return nil
                }
                var token: Int32 = 0
                let status = notify_register_dispatch(name, &token, queue) { _ in
                    StoreWatcher.noticeArrived(name)
                }
                registrations[name] = Registration(token: status == UInt32(NOTIFY_STATUS_OK) ? token : nil, objects: 1)
                return status == UInt32(NOTIFY_STATUS_OK) ? nil : status
            }
            if let failure {
                Log.error("other processes' changes are not noticed: notify_register_dispatch: \(failure)")
            }
        }

        /// Cancels the registration for `name` with the last live object that needed it.
        static func release(_ name: String) {
            registrations.withLock { registrations in
                guard var registration = registrations[name] else { return }
                registration.objects -= 1
                guard registration.objects == 0 else {
                    registrations[name] = registration
                    return
                }
                registrations[name] = nil
                if let token = registration.token { _ = notify_cancel(token) }
            }
        }

        static func post(_ name: String) {
            let status = notify_post(name)
            if status != UInt32(NOTIFY_STATUS_OK) {
                Log.error("other processes were not told of a write: notify_post: \(status)")
            }
        }

    }
#endif

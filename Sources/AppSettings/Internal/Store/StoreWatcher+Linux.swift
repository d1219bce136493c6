#if os(Linux) && !APPLE_STAND_INS
    import Foundation
    import Glibc

    extension StoreWatcher {
        // inotify on the store directory, where every save writes the recovery copy `<key>.archive`
        // in place (IN_CLOSE_WRITE) or renames a new one in (IN_MOVED_TO): one descriptor per
        // process, read by one plain thread in poll(2) (starting libdispatch's event machinery
        // delays a short process's exit). The instance is made `startDelay` after the first live
        // object, since the kernel's teardown of one at exit costs every short process a grace
        // period; `catchUp` then reports what was written meanwhile.

        static func startWatching(_ store: SettingsStore) {
            guard let location = store.preferencesDomain?.location, location.isUsable else { return }
            InotifyWatcher.shared.retain(location.storeDirectoryPath)
        }

        static func stopWatching(_ store: SettingsStore) {
            guard let location = store.preferencesDomain?.location, location.isUsable else { return }
            InotifyWatcher.shared.release(location.storeDirectoryPath)
        }

        /// Nothing to announce: the renamed copy is what other processes see.
        static func announceWrite(to store: SettingsStore) {}

        /// A file of `directory` changed: reported for the stores whose recovery copy it is.
        fileprivate static func fileChanged(_ name: String, in directory: String) {
            // Only recovery copies tell a change (not the lock file, nor a temporary file).
            guard name.hasSuffix(".archive"), !name.hasPrefix(".") else { return }
            let contents: Change.Contents
            do {
                // Replaced or removed again since: its next event says more.
                guard
                    let bytes = try RecoveryCopyFormat.archive(
                        inFileAtPath: appendingPathComponent(name, to: directory))
                else { return }
                contents = .bytes(bytes)
            } catch {
                // A file the library would not read (too large, a link, a FIFO): its objects are
                // told, and a reload says why in its `lastLoadError`.
                contents = .unreadable
            }
            report(
                Change(
                    concerns: { store in
                        guard let location = store.preferencesDomain?.location else { return false }
                        return location.storeDirectoryPath == directory
                            && location.keyFileName(store.key) + ".archive" == name
                    },
                    contents: { _ in contents }
                ))
        }

        /// The watch of `directories` began: each store there is reported with what its recovery
        /// copy holds, so that what another process wrote before the watch began is told too.
        fileprivate static func catchUp(_ directories: Set<String>) {
            report(
                Change(
                    concerns: { store in
                        store.preferencesDomain.map { directories.contains($0.location.storeDirectoryPath) } ?? false
                    },
                    contents: { store in
                        // No copy yet (nothing stored), or one the library would not read: nothing to tell.
                        guard let domain = store.preferencesDomain else { return .nothing }
                        let path = domain.location.recoveryCopyPath(forKey: store.key)
                        return (try? RecoveryCopyFormat.archive(inFileAtPath: path)).flatMap { $0 }.map { .bytes($0) }
                            ?? .nothing
                    }
                ))
        }

        /// The process's inotify descriptor, its reading thread, and the watched directories.
        private final class InotifyWatcher: Sendable {
            static let shared = InotifyWatcher()

            /// How long after the first live object the watch starts (see above).
            static let startDelay: useconds_t = 250_000

            private struct Watched {
                /// Whether a start is waiting for `startDelay` to pass.
                var isStartScheduled = false
                var descriptor: Int32 = -1
                /// The writing end of a pipe whose reading end the thread polls: closing it stops the
                /// thread, which closes the other descriptors.
                var stop: Int32 = -1
                /// By directory path: the watch descriptor (-1: not watched) and live objects.
                var directories: [String: (watch: Int32, objects: Int)] = [:]
                var directoriesByWatch: [Int32: String] = [:]
                /// Watches of the nearest existing ancestors of directories that do not exist
                /// yet, by path: the library creates no directory to watch it, so a live object of
                /// a suite nothing was stored in leaves nothing behind.
                var ancestors: [String: Int32] = [:]
                var ancestorsByWatch: [Int32: String] = [:]
            }

            private let watched = Protected(Watched())
            private static let mask = UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE)
            /// What an ancestor's watch waits for: a directory made or moved in.
            private static let ancestorMask = UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_ONLYDIR)

            func retain(_ path: String) {
                let scheduleStart = watched.withLock { watched -> Bool in
                    watched.directories[path, default: (watch: -1, objects: 0)].objects += 1
                    guard watched.descriptor < 0 else {
                        Self.watch(path, in: &watched)
                        return false
                    }
                    defer { watched.isStartScheduled = true }
                    return !watched.isStartScheduled
                }
                guard scheduleStart else { return }
                detachThread { [self] in
                    usleep(Self.startDelay)
                    startWatching()
                }
            }

            /// Makes the inotify instance and watches every directory of a live object, unless
            /// none is left; then catches up with what was written before.
            private func startWatching() {
                let directories = watched.withLock { watched -> Set<String> in
                    watched.isStartScheduled = false
                    guard !watched.directories.isEmpty, watched.descriptor < 0 else { return [] }
                    let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
                    var pipeEnds: [Int32] = [-1, -1]
                    guard descriptor >= 0, pipe(&pipeEnds) == 0 else {
                        Log.error("other processes' changes are not noticed: \(String(cString: strerror(errno)))")
                        if descriptor >= 0 { close(descriptor) }
                        return []
                    }
                    for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                    watched.descriptor = descriptor
                    watched.stop = pipeEnds[1]
                    start(descriptor, stoppedBy: pipeEnds[0])
                    for path in watched.directories.keys { Self.watch(path, in: &watched) }
                    return Set(watched.directories.keys)
                }
                if !directories.isEmpty { StoreWatcher.catchUp(directories) }
            }

            /// Adds a watch for `path` unless it has one; returns whether it was added now. A
            /// directory that does not exist yet (nothing was stored in the suite) is not created:
            /// its nearest existing ancestor is watched until it appears.
            @discardableResult
            private static func watch(_ path: String, in watched: inout Watched) -> Bool {
                guard let entry = watched.directories[path], entry.watch < 0 else { return false }
                let watch = inotify_add_watch(watched.descriptor, path, mask | UInt32(IN_ONLYDIR))
                guard watch >= 0 else {
                    if errno == ENOENT {
                        watchNearestAncestor(of: path, in: &watched)
                    } else {
                        logUnwatched(path)
                    }
                    return false
                }
                watched.directories[path]?.watch = watch
                watched.directoriesByWatch[watch] = path
                return true
            }

            private static func logUnwatched(_ path: String) {
                Log.error(
                    "other processes' changes are not noticed: inotify_add_watch \(path): "
                        + String(cString: strerror(errno)))
            }

            /// Watches the nearest existing ancestor of `path` for directories made in it.
            private static func watchNearestAncestor(of path: String, in watched: inout Watched) {
                var ancestor = path
                while true {
                    guard let slash = ancestor.lastIndex(of: "/"), slash != ancestor.startIndex else { return }
                    ancestor = String(ancestor[..<slash])
                    if watched.ancestors[ancestor] != nil { return }
                    let watch = inotify_add_watch(watched.descriptor, ancestor, ancestorMask)
                    if watch >= 0 {
                        watched.ancestors[ancestor] = watch
                        watched.ancestorsByWatch[watch] = ancestor
                        return
                    }
                    guard errno == ENOENT else { return logUnwatched(ancestor) }
                }
            }

            /// A directory appeared in a watched ancestor: watches what now exists (or a nearer
            /// ancestor), drops ancestor watches nothing waits for, and catches up with what was
            /// stored in the directories watched now.
            private func directoryAppeared() {
                let added = watched.withLock { watched -> Set<String> in
                    guard watched.descriptor >= 0 else { return [] }
                    for (watch, _) in watched.ancestorsByWatch { inotify_rm_watch(watched.descriptor, watch) }
                    watched.ancestors = [:]
                    watched.ancestorsByWatch = [:]
                    var added: Set<String> = []
                    for path in watched.directories.keys where Self.watch(path, in: &watched) { added.insert(path) }
                    return added
                }
                if !added.isEmpty { StoreWatcher.catchUp(added) }
            }

            func release(_ path: String) {
                watched.withLock { watched in
                    guard var entry = watched.directories[path] else { return }
                    entry.objects -= 1
                    guard entry.objects == 0 else {
                        watched.directories[path] = entry
                        return
                    }
                    watched.directories[path] = nil
                    if entry.watch >= 0 {
                        inotify_rm_watch(watched.descriptor, entry.watch)
                        watched.directoriesByWatch[entry.watch] = nil
                    }
                    if watched.directories.isEmpty, watched.stop >= 0 {
                        close(watched.stop)  // the thread sees the pipe close and closes the rest
                        watched.stop = -1
                        watched.descriptor = -1
                        watched.ancestors = [:]
                        watched.ancestorsByWatch = [:]
                    }
                }
            }

            /// Reads events until the pipe's other end is closed, then closes both descriptors.
            private func start(_ descriptor: Int32, stoppedBy stop: Int32) {
                detachThread { [self] in
                    var descriptors = [
                        pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                        pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
                    ]
                    while true {
                        guard poll(&descriptors, 2, -1) >= 0 else {
                            if errno == EINTR { continue }
                            Log.error(
                                "other processes' changes are no longer noticed: poll: \(String(cString: strerror(errno)))"
                            )
                            break
                        }
                        if descriptors[1].revents != 0 { break }
                        if descriptors[0].revents != 0 { readEvents(descriptor) }
                    }
                    close(descriptor)
                    close(stop)
                }
            }

            /// Reads every pending event, then tells the objects of each changed copy once.
            private func readEvents(_ descriptor: Int32) {
                var changed: [(directory: String, name: String)] = []
                var ancestorChanged = false
                var buffer = [UInt8](repeating: 0, count: 16 * 1024)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    guard count > 0 else { break }  // EAGAIN: all read
                    buffer.withUnsafeBytes { bytes in
                        var offset = 0
                        // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[len]; }
                        while offset + 16 <= count {
                            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                            let nameBytes = bytes[(offset + 16)..<min(offset + 16 + length, count)]
                            let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                            offset += 16 + length
                            if mask & UInt32(IN_IGNORED) != 0 {
                                forget(watch)  // the directory went away
                            } else if mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0,
                                mask & UInt32(IN_ISDIR) != 0,
                                watched.withLock({ $0.ancestorsByWatch[watch] != nil })
                            {
                                ancestorChanged = true
                            } else if mask & Self.mask != 0, name.hasSuffix(".archive"), !name.hasPrefix("."),
                                let directory = watched.withLock({ $0.directoriesByWatch[watch] }),
                                !changed.contains(where: { $0 == (directory, name) })
                            {
                                changed.append((directory, name))
                            }
                        }
                    }
                }
                if ancestorChanged { directoryAppeared() }
                for (directory, name) in changed { StoreWatcher.fileChanged(name, in: directory) }
            }

            private func forget(_ watch: Int32) {
                watched.withLock { watched in
                    if let ancestor = watched.ancestorsByWatch.removeValue(forKey: watch) {
                        watched.ancestors[ancestor] = nil
                    }
                    guard let path = watched.directoriesByWatch.removeValue(forKey: watch) else { return }
                    watched.directories[path]?.watch = -1
                    // The directory went away (its suite was removed): watched again when it is back.
                    if watched.directories[path] != nil { Self.watchNearestAncestor(of: path, in: &watched) }
                }
            }
        }
    }

    /// Runs `body` on a new detached thread. A POSIX thread rather than Foundation's `Thread`,
    /// whose first use costs a process about 50 µs more (the first settings object schedules the
    /// watch's start this way); unnamed, since Glibc's module does not offer `pthread_setname_np`.
    private func detachThread(_ body: @escaping @Sendable () -> Void) {
        final class Body: Sendable {
            let run: @Sendable () -> Void
            init(_ run: @escaping @Sendable () -> Void) { self.run = run }
        }
        let argument = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                Unmanaged<Body>.fromOpaque(argument).takeRetainedValue().run()
                return nil
            }, argument)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(argument).release()
            Log.error("other processes' changes are not noticed: pthread_create: \(String(cString: strerror(result)))")
            return
        }
        pthread_detach(thread)
    }
#endif

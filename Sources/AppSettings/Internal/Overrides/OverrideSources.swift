import Foundation

/// Where overrides come from: the launch arguments, the environment and managed configuration
/// of this process. Each settings object takes them at initialization; tests set other ones with
/// ``current``.
struct OverrideSources: @unchecked Sendable {
    /// The sources of overrides in the order they win, first first: where two hold a value for
    /// one setting, the first whose value fits is taken (``SettingSource`` documents the order).
    static let precedence: [SettingSource] = [.managed, .launchArgument, .environment]

    /// The launch arguments paired as `UserDefaults`' argument domain pairs them, `-key value`,
    /// by key (without the dash); the text as given. A later pair of the same key wins.
    let arguments: [String: String]
    let environment: [String: String]
    let managed: ManagedConfigurationSource
    /// What ``entries(for:)`` found, by postfix: each set's objects filter the arguments and
    /// the environment once.
    private let entriesByPostfix = Protected<[String: Entries]>([:])

    /// The launch arguments and environment variables that may be meant for the sets of one key
    /// postfix, sorted by key: those whose names start as that set's names do.
    struct Entries {
        var arguments: [(key: String, text: String)]
        var environment: [(name: String, text: String)]
    }

    func entries(for key: SettingsKey) -> Entries {
        let postfix = key.postfix
        if let known = entriesByPostfix.withLock({ $0[postfix] }) { return known }
        let argumentPrefix = key.argumentKey(path: "")
        let environmentPrefix = key.environmentName(path: "") + "_"
        let entries = Entries(
            arguments: arguments.filter { $0.key.hasPrefix(argumentPrefix) }.sorted { $0.key < $1.key }
                .map { (key: $0.key, text: $0.value) },
            environment: environment.filter { $0.key.hasPrefix(environmentPrefix) }.sorted { $0.key < $1.key }
                .map { (name: $0.key, text: $0.value) })
        entriesByPostfix.withLock { $0[postfix] = entries }
        return entries
    }

    /// `arguments` as `CommandLine.arguments` has them, the program first.
    init(arguments: [String], environment: [String: String], managed: ManagedConfigurationSource) {
        self.arguments = Self.pairs(in: arguments.dropFirst())
        self.environment = environment
        self.managed = managed
    }

    /// `-key value` pairs: an argument that starts with `-` takes the next one as its value,
    /// whatever it is (so `-Settings.offset -3` works); anything else is skipped.
    static func pairs(in arguments: ArraySlice<String>) -> [String: String] {
        var pairs: [String: String] = [:]
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument.count > 1, argument.hasPrefix("-"), index + 1 < arguments.endIndex {
                pairs[String(argument.dropFirst())] = arguments[index + 1]
                index += 2
            } else {
                index += 1
            }
        }
        return pairs
    }

    /// This process's sources, read once.
    static let process: OverrideSources = {
        let info = ProcessInfo.processInfo
        // Built anew at every call: read once.
        let environment = info.environment
        #if canImport(Darwin) || APPLE_STAND_INS
            let managed = ManagedConfigurationSource.managedAppConfiguration(.standard)
        #else
            let managed = ManagedConfigurationSource.configurationDirectories(
                ManagedConfigurationSource.configurationDirectories(environment: environment))
        #endif
        return OverrideSources(arguments: info.arguments, environment: environment, managed: managed)
    }()

    /// The sources objects created in this task take; `nil`: ``process``. For tests.
    @TaskLocal static var current: OverrideSources?

    /// What an object initialized now takes.
    static var forNewObject: OverrideSources { current ?? process }
}

extension SettingsStore {
    /// The `UserDefaults` domain whose directory holds the store's managed configuration file
    /// (Linux: `AppSettings/<domain>/<key>.json`). An in-memory store is configured as the suite of
    /// its name; a test's store (of `.isolatedAppSettings`) as `.standard`, which it stands for.
    /// Apple's managed app configuration is the app's, whatever the suite: no domain.
    var managedConfigurationDomain: String {
        #if os(Linux) && !APPLE_STAND_INS
            if let preferencesDomain { return preferencesDomain.location.domainName }
            return DomainLocation.of(suiteNamed: location.storage?.suiteName).domainName
        #else
            return ""
        #endif
    }
}

/// Where managed configuration is, and what it holds for one settings set.
enum ManagedConfigurationSource {
    /// Apple's managed app configuration: the dictionary under
    /// ``managedAppConfigurationKey`` in this `UserDefaults` (`.standard` in an app), whose entry
    /// `<userDefaultsKey>` holds `{storedName: value}`.
    case managedAppConfiguration(UserDefaults)
    /// Linux: `AppSettings/<domain>/<userDefaultsKey>.json` in these directories, the first
    /// found winning.
    case configurationDirectories([String])
    /// None (a source for tests).
    case none

    /// The key of the managed app configuration in `UserDefaults.standard` (Apple platforms).
    static let managedAppConfigurationKey = "com.apple.configuration.managed"

    /// `$XDG_CONFIG_DIRS`, its absolute entries in order, or `/etc/xdg` when it has none.
    static func configurationDirectories(environment: [String: String]) -> [String] {
        let directories = (environment["XDG_CONFIG_DIRS"] ?? "").split(separator: ":").map(String.init)
            .filter { $0.hasPrefix("/") }
        return directories.isEmpty ? ["/etc/xdg"] : directories
    }

    /// What managed configuration holds for one settings set.
    enum Read: Equatable {
        /// Nothing for this set.
        case none
        /// The set's entries by stored name (nested settings objects as dictionaries), and where
        /// they were found.
        case entries([String: StoredValue], origin: String)
        /// Something is there but cannot be used.
        case unreadable(origin: String, value: String, reason: String)
    }

    /// Reads what is there for the set under `key`; `domain` names the `UserDefaults` domain
    /// (the directory under `AppSettings/` on Linux).
    func read(key: String, domain: @autoclosure () -> String) -> Read {
        switch self {
        case .none:
            return .none
        case .managedAppConfiguration(let userDefaults):
            return Self.read(key: key, in: userDefaults)
        case .configurationDirectories(let directories):
            return Self.read(key: key, domain: domain(), directories: directories)
        }
    }

    /// The entry `key` of the managed app configuration dictionary in `userDefaults`.
    static func read(key: String, in userDefaults: UserDefaults) -> Read {
        guard let configuration = userDefaults.object(forKey: managedAppConfigurationKey) else { return .none }
        let origin = "\(managedAppConfigurationKey)[\(key)]"
        guard let dictionary = configuration as? [String: Any] else {
            return .unreadable(
                origin: managedAppConfigurationKey, value: foundTypeName(of: configuration),
                reason: "it is not a dictionary")
        }
        // The AppConfig form (`appsettings schema --format appconfig`): one key per setting,
        // `<key>.<stored name>` (a nested object's settings by dotted path), beside or instead of
        // the set's dictionary, whose entries win.
        var flat: [String: StoredValue] = [:]
        let prefix = key + "."
        for (name, value) in dictionary where name.hasPrefix(prefix) {
            guard let stored = OverrideText.storedValue(ofParsed: value) else { continue }
            flat = StoredValue.setting(
                stored, at: name.dropFirst(prefix.count).split(separator: ".").map(String.init), in: flat,
                creatingDictionaries: true)
        }
        guard let entry = dictionary[key] else { return flat.isEmpty ? .none : .entries(flat, origin: origin) }
        guard case .dictionary(let entries)? = OverrideText.storedValue(ofParsed: entry) else {
            return .unreadable(
                origin: origin, value: foundTypeName(of: entry),
                reason: "expected a dictionary of settings by stored name")
        }
        return .entries(flat.merging(entries) { _, own in own }, origin: origin)
    }

    /// The file `AppSettings/<domain>/<key>.json` in the first of `directories` that has it,
    /// parsed again only when its `stat(2)` identity changed. A place that cannot be reached is
    /// reported, not skipped. The file may be a link (configuration managers link into `/etc`);
    /// a FIFO or a device, a file over ``GuardedFile/maximumDocumentByteCount`` bytes, and an
    /// untrusted one (``GuardedFile/refusalOfOwnership(of:at:)``) are refused unread.
    static func read(key: String, domain: String, directories: [String]) -> Read {
        for path in filePaths(key: key, domain: domain, directories: directories) {
            let version: GuardedFile.Version
            do {
                guard let found = try GuardedFile.version(of: path) else { continue }
                version = found
            } catch {
                return .unreadable(origin: path, value: "", reason: "it cannot be reached: \(error)")
            }
            let known = managedFiles.withLock { $0[path] }
            if let known, known.version == version { return known.read }
            let read = parse(path)
            managedFiles.withLock { $0[path] = (version, read, (known?.parses ?? 0) + 1) }
            return read
        }
        return .none
    }

    private static func parse(_ path: String) -> Read {
        if let refusal = GuardedFile.refusalOfFile(at: path) {
            return .unreadable(origin: path, value: "", reason: "it is not trusted: \(refusal)")
        }
        let data: Data
        do {
            guard
                let contents = try GuardedFile.read(
                    path, limit: GuardedFile.maximumDocumentByteCount, followingLinks: true)
            else { return .none }
            data = contents
        } catch {
            return .unreadable(origin: path, value: "", reason: "it cannot be read: \(error)")
        }
        // Read as documents are: numbers exactly, as written (`JSONReader`).
        guard case .dictionary(let entries)? = try? JSONReader.value(from: data) else {
            return .unreadable(
                origin: path, value: String(decoding: data.prefix(200), as: UTF8.self),
                reason: "expected a JSON object of settings by stored name")
        }
        return .entries(entries, origin: path)
    }

    /// What each managed file held when last read, by path, and how often it was parsed.
    private static let managedFiles = Protected<[String: (version: GuardedFile.Version, read: Read, parses: Int)]>([:])

    /// How often the managed file at `path` was parsed in this process (for tests).
    static func parseCount(of path: String) -> Int {
        managedFiles.withLock { $0[path]?.parses ?? 0 }
    }

    /// The places of a set's file, made once per process for each domain, key and directories
    /// (every object of a set looks there at initialization).
    private static func filePaths(key: String, domain: String, directories: [String]) -> [String] {
        // A `String` key: `[String]`'s first use as one scans the process's conformance records.
        let cacheKey = directories.reduce(domain + "\0" + key) { $0 + "\0" + $1 }
        if let paths = filePathCache.withLock({ $0[cacheKey] }) { return paths }
        let name = SettingsKey(storedKey: key).managedConfigurationFile(domain: domain)
        let paths = directories.map { appendingPathComponent(name, to: $0) }
        filePathCache.withLock { $0[cacheKey] = paths }
        return paths
    }

    private static let filePathCache = Protected<[String: [String]]>([:])
}

extension SettingSource {
    /// The place in ``OverrideSources/precedence``: lower wins (sources that are no override last).
    var overrideRank: Int {
        OverrideSources.precedence.firstIndex(of: self) ?? OverrideSources.precedence.count
    }
}

// A model of what Apple's UserDefaults and process do, beside the stand-ins of their
// declarations. Each rule quotes the line of Apple's documentation it models (developer.apple.com,
// the page named before the quote). What a rule cannot show on Linux is said where it is.

import CoreFoundation
import Foundation
import Synchronization

/// `UserDefaults` as Apple's behaves, over swift-corelibs-foundation's.
///
/// Rules:
/// 1. Every change posts `didChangeNotification`, synchronously, on the writing thread.
///    documentation/foundation/userdefaults/didchangenotification: "When you write a new value to
///    a setting, or remove an existing value, the system generates this notification" and "The
///    system posts this notification on the same thread you used to make the change."
///    (corelibs posts nothing for `set` and `removeObject`.)
/// 2. A change reaches persistent storage without `synchronize()`, and `synchronize()` only waits.
///    documentation/foundation/userdefaults: "When you set a default value, it's changed
///    synchronously within your process, and asynchronously to persistent storage and other
///    processes." documentation/foundation/userdefaults/synchronize(): "Waits for any pending
///    asynchronous updates to the defaults database and returns"; returns "true if the data was
///    saved successfully to disk, otherwise false". The model writes the domain's file on a queue of
///    its own, once for the changes made since it last did, and `synchronize()` waits for it; the
///    file is where Apple keeps it: `Library/Preferences/<name>.plist`
///    in the home directory, or in the App Group's container for a group's suite.
/// 3. Protected data. The domain's file is under data protection, in the class the app's
///    container gives it (Apple DTS, developer forums thread 15685: "NSUserDefaults is ultimately
///    backed by a file in your app's container and your app's container is subject to data
///    protection. If you do nothing special then, on iOS 7 and later, your container uses
///    NSFileProtectionCompleteUntilFirstUserAuthentication, a value that's inherited by the
///    NSUserDefaults backing store"; thread 858122, asked whether the
///    `com.apple.developer.default-data-protection` entitlement affects the preferences: "Yes. But
///    it's not always obvious because of the way that default data protection is inherited"):
///    `AppleProcess.preferencesProtection`, `.complete` for a container under Xcode's Data
///    Protection capability. While a file of that class cannot be opened (`AppleProcess.lockState`,
///    FileProtection.swift) the domain reads empty while its file exists, and a write does not
///    reach the file (`synchronize()` returns false). documentation/uikit/uiapplication/
///    protecteddatadidbecomeavailablenotification: "A notification that posts when the protected
///    files become available for your code to access" (`AppleProcess.unlock()`). On a device the
///    file also cannot be opened then; as root on Linux it can, so only its reading empty is
///    modelled here, and the files the library itself protects are modelled in FileProtection.swift.
/// 4. Empty until relaunched. A domain read before the device's first unlock keeps reading empty
///    in that process after the unlock, until the app is launched again (thread 15685: "if I
///    reboot my phone and wait for a background launch of my app to happen, then when I open the
///    app I find that [[NSUserDefaults standardUserDefaults] dictionaryRepresentation] contains all
///    the system values ... but does not contain any of the values I have set. If I force-quit and
///    relaunch the app all of my values come back"): `AppleProcess.relaunch()`. Its writes reach
///    the file as others do.
open class AppleUserDefaults: UserDefaults {
    /// The suite's name, as `init(suiteName:)` was given it.
    public let suiteName: String?

    public override init?(suiteName: String?) {
        self.suiteName = suiteName
        super.init(suiteName: suiteName)
    }

    /// The domain's file, where Apple keeps it.
    public var preferencesFileURL: URL? {
        guard let suiteName else { return nil }
        return AppleProcess.preferencesDirectory(forSuite: suiteName)
            .appendingPathComponent(suiteName + ".plist", isDirectory: false)
    }

    // MARK: The registration domain

    /// documentation/foundation/userdefaults/registrationdomain: "The domain consisting of a set
    /// of temporary defaults whose values can be set by the application to ensure that searches
    /// will always be successful"; register(defaults:): "The contents of the registration domain
    /// are not written to disk". Read last, and through `volatileDomain(forName:)`. Kept per
    /// instance here (corelibs shares one among all, which would let tests of other suites see
    /// each other's).
    private let registered = NSLock()
    nonisolated(unsafe) private var registeredDefaults: [String: Any] = [:]

    open override func register(defaults registrationDictionary: [String: Any]) {
        registered.lock()
        defer { registered.unlock() }
        registeredDefaults.merge(registrationDictionary) { $1 }
    }

    open override func volatileDomain(forName domainName: String) -> [String: Any] {
        guard domainName == UserDefaults.registrationDomain else { return super.volatileDomain(forName: domainName) }
        registered.lock()
        defer { registered.unlock() }
        return registeredDefaults
    }

    // MARK: Reads (empty while protected data is unavailable, rules 3 and 4)

    /// Whether the domain reads what it holds now; a read before the first unlock marks it empty
    /// until the process is launched again.
    private var isReadable: Bool {
        let name = suiteName ?? ""
        return AppleProcess.lock.withLock {
            if !AppleProcess.canOpen(AppleProcess.preferencesProtection) {
                if AppleProcess.lockState == .beforeFirstUnlock { AppleProcess.readBeforeFirstUnlock.insert(name) }
                return false
            }
            return !AppleProcess.readBeforeFirstUnlock.contains(name)
        }
    }

    /// Whether the domain's file can be written now (rule 3).
    private var isWritable: Bool {
        AppleProcess.lock.withLock { AppleProcess.canOpen(AppleProcess.preferencesProtection) }
    }

    open override func object(forKey defaultName: String) -> Any? {
        guard isReadable else { return nil }
        if let data = storedData(forKey: defaultName) { return data }
        if let value = super.object(forKey: defaultName) { return value }
        registered.lock()
        defer { registered.unlock() }
        return registeredDefaults[defaultName]
    }

    open override func persistentDomain(forName domainName: String) -> [String: Any]? {
        guard isReadable else { return nil }
        return super.persistentDomain(forName: domainName)
    }

    open override func dictionaryRepresentation() -> [String: Any] {
        guard isReadable else { return [:] }
        return super.dictionaryRepresentation()
    }

    // MARK: Changes (each one posted on the writing thread, then persisted)

    open override func set(_ value: Any?, forKey defaultName: String) {
        if let data = value as? Data {
            store(data, forKey: defaultName)
        } else {
            super.set(value, forKey: defaultName)
        }
        persist()
        NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: self)
    }

    open override func removeObject(forKey defaultName: String) {
        super.removeObject(forKey: defaultName)
        persist()
        NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: self)
    }

    /// Waits for the changes not yet persisted (rule 2), then re-reads the domain, so that
    /// another writer's changes are seen, as Apple's daemon shows them.
    open override func synchronize() -> Bool {
        guard isWritable else { return false }
        persistence.sync {}
        return super.synchronize()
    }

    /// Writes the domain's file on the persistence queue, once for all changes made meanwhile.
    private func persist() {
        guard isWritable else { return }
        let isNew = persisting.withLock { pending in
            defer { pending = true }
            return !pending
        }
        guard isNew else { return }
        nonisolated(unsafe) weak let owner = self
        persistence.async {
            guard let owner else { return }
            owner.persisting.withLock { $0 = false }
            owner.writeFile()
        }
    }

    // MARK: `Data` values, read and written through CoreFoundation
    //
    // corelibs' `object(forKey:)`, `set(_:forKey:)` and `persistentDomain(forName:)` bridge a `Data`
    // value byte by byte (about 0.2 s a megabyte), where Apple's read and write it whole; the
    // suite's sets of a megabyte and more (iCloud's limits, the random sync schedules) spent most
    // of the suite's time there. These do what corelibs does (the same CoreFoundation calls on
    // the same domain: `CFPreferencesCopyAppValue` and `CFPreferencesSetAppValue` with the
    // suite's name), copying the bytes at once; every other value goes through corelibs.

    /// The `Data` the domain holds under `key`; `nil` for any other value, and for a key that the
    /// argument domain sets (which corelibs reads first).
    private func storedData(forKey key: String) -> Data? {
        guard volatileDomain(forName: UserDefaults.argumentDomain)[key] == nil,
            let value = CFPreferencesCopyAppValue(Self.cfString(key), application) as? NSData
        else { return nil }
        return Self.bytes(of: value)
    }

    /// Stores `data` under `key`, as corelibs' `set(_:forKey:)` does.
    private func store(_ data: Data, forKey key: String) {
        let value = data.withUnsafeBytes { bytes in
            CFDataCreate(nil, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        CFPreferencesSetAppValue(Self.cfString(key), value, application)
    }

    /// The domain as a binary property list, as Apple's daemon writes it: what
    /// `persistentDomain(forName:)` reads, written by CoreFoundation.
    private func domainFileBytes(_ suiteName: String) throws -> Data {
        let name = Self.cfString(suiteName)
        guard let keys = CFPreferencesCopyKeyList(name, kCFPreferencesCurrentUser, kCFPreferencesAnyHost) else {
            return try PropertyListSerialization.data(fromPropertyList: [String: Any](), format: .binary, options: 0)
        }
        // Given the keys, never NULL (without them, NULL for an empty domain, though declared nonnull).
        let domain = CFPreferencesCopyMultiple(keys, name, kCFPreferencesCurrentUser, kCFPreferencesAnyHost)
        guard let data = CFPropertyListCreateData(nil, domain, .binaryFormat_v1_0, 0, nil)?.takeRetainedValue() else {
            throw CocoaError(.propertyListWriteInvalid)
        }
        return Data(bytes: CFDataGetBytePtr(data), count: CFDataGetLength(data))
    }

    /// The domain's name for CoreFoundation: the suite's, as corelibs passes it.
    private var application: CFString { suiteName.map(Self.cfString) ?? kCFPreferencesCurrentApplication }

    private static func cfString(_ string: String) -> CFString {
        CFStringCreateWithCString(nil, string, CFStringBuiltInEncodings.UTF8.rawValue)
    }

    /// The bytes of a value CoreFoundation made (an `NSData` in corelibs), copied whole.
    private static func bytes(of data: NSData) -> Data {
        data.length > 0 ? Data(bytes: data.bytes, count: data.length) : Data()
    }

    private let persistence = DispatchQueue(label: "AppleUserDefaults.persistence")
    private let persisting = Mutex(false)

    private func writeFile() {
        guard isWritable, super.synchronize(), let suiteName,
            let file = preferencesFileURL
        else { return }
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try domainFileBytes(suiteName).write(to: file, options: .atomic)
            AppleProcess.removeAtExit(file)
        } catch {
            FileHandle.standardError.write(Data("AppleUserDefaults: \(file.path): \(error)\n".utf8))
        }
    }
}

/// Swift numbers as Darwin bridges them to `NSNumber`.
///
/// On Darwin every Swift number casts to `NSNumber` (`value as? NSNumber`), and the number's
/// `objCType` is the C type it was made from: an `Int8` is a `char`, `"c"`, the type a Boolean
/// `NSNumber` reports too; a `Bool` becomes a `CFBoolean` (kCFBooleanTrue / kCFBooleanFalse).
/// "Using Numbers" (Number and Value Programming Topics): "An NSNumber object records the numeric
/// type with which it is created", and "(If you ask a number for its objCType, however, the
/// returned type does not necessarily match the method the receiver was created with.)"
/// corelibs reports `"i"` for an `Int8` and cannot make an `NSNumber` that says `"c"` without
/// being a Boolean (nor can `NSNumber` be subclassed there), so the model keeps the `objCType`
/// Darwin gives each number it bridges: the library's stand-in build casts numbers through
/// ``number(_:)`` and reads their type through ``objCType(of:)``.
public enum DarwinBridging {
    private static let lock = NSLock()
    /// The numbers bridged from `Int8` and `UInt8`, with their type on Darwin (kept alive here).
    nonisolated(unsafe) private static var characterNumbers: [ObjectIdentifier: (NSNumber, String)] = [:]

    /// `value as? NSNumber`, as on Darwin.
    public static func number(_ value: Any) -> NSNumber? {
        // By the value's own type: a Swift `Int` also casts to `Int8` through `NSNumber`.
        if type(of: value) == Int8.self, let value = value as? Int8 { return characterNumber(value, "c") }
        if type(of: value) == UInt8.self, let value = value as? UInt8 {
            return characterNumber(value, "C")
        }
        return value as? NSNumber
    }

    /// `number.objCType`, as on Darwin.
    public static func objCType(of number: NSNumber) -> String {
        lock.lock()
        defer { lock.unlock() }
        return characterNumbers[ObjectIdentifier(number)]?.1 ?? String(cString: number.objCType)
    }

    /// `value` with its numbers as Darwin hands them over in a Foundation collection (an
    /// `NSDictionary` from Objective-C, a property list): `NSNumber`s, containers element by element.
    public static func bridged(_ value: Any) -> Any {
        switch value {
        case let values as [String: Any]: return values.mapValues(bridged)
        case let values as [Any]: return values.map(bridged)
        default:
            if value is String || value is Data || value is Date { return value }
            return number(value) ?? value
        }
    }

    /// A number of its own (corelibs shares the `NSNumber` of small integers between types, so
    /// an `NSDecimalNumber`, never shared), recorded with Darwin's type.
    private static func characterNumber(_ value: some BinaryInteger, _ type: String) -> NSNumber {
        let number = NSDecimalNumber(value: Int(value))
        lock.lock()
        defer { lock.unlock() }
        characterNumbers[ObjectIdentifier(number)] = (number, type)
        return number
    }
}

/// The device's lock, as data protection sees it.
public enum DeviceLockState: Sendable {
    /// Booted, not unlocked since.
    case beforeFirstUnlock
    /// Locked after the first unlock.
    case locked
    case unlocked
}

/// Which Apple platform the model behaves as, where they differ.
public enum ApplePlatform: Sendable {
    case iOS
    case macOS
}

/// How the system answers `performExpiringActivity(withReason:using:)`.
public enum ExpiringActivityAnswer: Sendable {
    /// The block runs with `false`, and the process is not suspended while it runs.
    case granted
    /// The block runs once, with `true`: the process is being suspended.
    case refused
    /// The block runs with `false`; after `delay`, while it still runs, it is called a second
    /// time with `true`. When that second call returns, the process is suspended.
    case expiresWhileRunning(after: Duration)
}

extension AppleProcess {
    /// The platform the model behaves as (`containerURL`).
    nonisolated(unsafe) public static var platform = ApplePlatform.iOS
    /// How expiring activities are answered (`.granted` unless `isBeingSuspended`).
    nonisolated(unsafe) public static var expiringActivityAnswer = ExpiringActivityAnswer.granted
    /// Called when a process whose activity expired is suspended (the expired block returned):
    /// a test looks there at what the process still holds.
    nonisolated(unsafe) public static var whenSuspended: (@Sendable () -> Void)?
    /// The device's lock (`AppleUserDefaults`, rules 3 and 4; FileProtection.swift).
    nonisolated(unsafe) public static var lockState = DeviceLockState.unlocked
    /// The class of the preferences files: the one the app's container gives them (rule 3).
    nonisolated(unsafe) public static var preferencesProtection = FileProtectionType
        .completeUntilFirstUserAuthentication
    /// The domains read before the first unlock in this launch (rule 4).
    nonisolated(unsafe) static var readBeforeFirstUnlock: Set<String> = []

    /// Whether a file of `protection` can be opened now (documentation/foundation/
    /// fileprotectiontype: `complete`, "cannot be read from or written to while the device is
    /// locked or booting"; `completeUnlessOpen` likewise for a file not open already;
    /// `completeUntilFirstUserAuthentication`, "cannot be accessed until after the device has
    /// booted. After the user unlocks the device for the first time, your app can access the file
    /// and continue to access it even if the user subsequently locks the device"; `none`, "no
    /// special protections").
    static func canOpen(_ protection: FileProtectionType) -> Bool {
        switch lockState {
        case .unlocked: true
        case .locked:
            protection.rawValue != FileProtectionType.complete.rawValue
                && protection.rawValue != FileProtectionType.completeUnlessOpen.rawValue
        case .beforeFirstUnlock: protection.rawValue == FileProtectionType.none.rawValue
        }
    }

    /// The name of UIKit's `protectedDataDidBecomeAvailableNotification`.
    public static let protectedDataDidBecomeAvailable = Notification.Name(
        "UIApplicationProtectedDataDidBecomeAvailable")

    /// The user unlocks the device: the notification is posted (documentation/uikit/
    /// uiapplicationdelegate/applicationprotecteddatadidbecomeavailable(_:): "This notification
    /// lets your app know that the device is now unlocked").
    public static func unlock() {
        lockState = .unlocked
        NotificationCenter.default.post(name: protectedDataDidBecomeAvailable, object: nil)
    }

    /// The app is launched again: no domain reads empty for having been read before the first
    /// unlock (rule 4). A test makes the library forget this launch too.
    public static func relaunch() {
        lock.withLock { readBeforeFirstUnlock = [] }
    }

    /// The preferences files the model wrote, removed when the process exits: the home directory
    /// is the user's (corelibs' `NSHomeDirectory()` does not follow `$HOME`), not a scratch one.
    private static let writtenFiles = Mutex<Set<String>>([])

    static func removeAtExit(_ file: URL) {
        let isFirst = writtenFiles.withLock { files in
            defer { files.insert(file.path) }
            return files.isEmpty
        }
        guard isFirst else { return }
        atexit {
            let paths = AppleProcess.writtenFiles.withLock { $0 }
            for path in paths { unlink(path) }
            // The folders the model made, when nothing else is in them.
            for path in Set(paths.map { ($0 as NSString).deletingLastPathComponent }) {
                rmdir(path)
                rmdir((path as NSString).deletingLastPathComponent)
            }
        }
    }

    /// Where a suite's preferences file is: in the App Group's container for a group the process
    /// is entitled to, else in the home directory.
    public static func preferencesDirectory(forSuite suiteName: String) -> URL {
        let home =
            appGroups.contains(suiteName)
            ? containersDirectory.appendingPathComponent(suiteName, isDirectory: true)
            : URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
        return home.appendingPathComponent("Library/Preferences", isDirectory: true)
    }

    /// On macOS, the container of a group the app is not entitled to: "a URL of the expected
    /// form", whose directory cannot be made (a file is where its parent would be).
    static var unentitledContainersDirectory: URL {
        let file = containersDirectory.deletingLastPathComponent()
            .appendingPathComponent("AppleStandIns-\(getpid())-not-a-directory", isDirectory: false)
        if !FileManager.default.fileExists(atPath: file.path) {
            _ = FileManager.default.createFile(atPath: file.path, contents: Data())
        }
        return file
    }
}

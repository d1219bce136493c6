import Foundation
import Observation

/// The base class of a typed settings set that is stored as one keyed archive in `UserDefaults`.
///
/// Subclass it, declare each setting as a ``Setting`` property with its developer default, and
/// decide yourself when the set is written and when it is thrown back to what is stored:
///
/// ```swift
/// final class MySettings: AppSettingsObject, @unchecked Sendable {
///     @Setting var dontDimScreen = false
///     @Setting(validate: { min(max($0, 0), 1) }) var soundLevel: Float = 0.7
///     @Setting var theme = Theme.light
///
///     override var userDefaultsKeyPostfix: String { "MyAppsSettings" }
/// }
///
/// MySettings.shared.soundLevel = 0.85
/// try MySettings.shared.synchronizeToUserDefaults()   // write the whole set
/// try MySettings.shared.resetToUserDefaults()         // revert to what is stored
/// ```
///
/// Every member may be called from any thread. Each `@Setting` is guarded by the object's lock;
/// a subclass restates `@unchecked Sendable` because any plain stored `var` it adds is its own to
/// guard.
///
/// In a target with default main-actor isolation (new Xcode 26 app targets), declare the subclass
/// inside a `nonisolated enum` namespace; <doc:GettingStarted> explains why.
open class AppSettingsObject: NSObject, @unchecked Sendable {
    /// The lock and the state it guards; `@Setting` values are guarded by it too.
    @usableFromInline let _state = Protected(ObjectState())

    /// Held by ``synchronizeToUserDefaults()`` from snapshot to write. (It guards an unused `Int`:
    /// with a zero-sized value, ThreadSanitizer reports the lock's own accesses as races.)
    let _synchronization = Protected(0)

    /// Observation's registrar, for per-setting tracking.
    @usableFromInline let _registrar = ObservationRegistrar()

    /// The `UserDefaults` this set is stored in.
    public let userDefaults: UserDefaults

    /// The slots of all `@Setting` properties, in declaration order (superclass first).
    private(set) final var slots: [AnySettingSlot] = []
    /// Its class's layout, its key and its store: set once, during initialization.
    private(set) final var binding = ObjectBinding()
    /// Whether other code may see this object: `false` for a scratch copy or an object still
    /// initializing, which may be changed without locks or notifications.
    final var isPublished = false

    /// Creates a settings set bound to `userDefaults`: developer defaults first, then what is
    /// stored, if anything.
    ///
    /// An initializer never throws: when the stored state cannot be used, the settings concerned
    /// keep their developer defaults, the stored bytes stay untouched, and ``lastLoadError``
    /// says what happened.
    ///
    /// `MySettings(userDefaults: suite)` is `MySettings(store: .userDefaults(suite))`: see
    /// ``AppSettingsStore/userDefaults(_:)`` for a `UserDefaults` the library cannot name (one made
    /// with `UserDefaults(suiteName:)`), and name such a suite with `init(store:)` instead.
    ///
    /// - Parameter userDefaults: Where the set is stored: `.standard`, or a suite for an app
    ///   group or a separate set.
    public required init(userDefaults: UserDefaults = .standard) {
        if let scratch = userDefaults as? ScratchCopyDefaults
            ?? (ScratchCopyDefaults.isDescribing ? ScratchCopyDefaults.describingClass : nil)
        {
            // A scratch copy (`makeScratchCopy`): bound to the live object's store, never
            // loaded, overridden or published.
            self.userDefaults = scratch.store.userDefaults
            super.init()
            attachSlots(to: scratch.store)
            return
        }
        let store = SettingsIsolationScope.store(for: .userDefaults(userDefaults), of: Self.self)
        self.userDefaults = store.userDefaults
        super.init()
        attachSlots(to: store)
        let availabilityNotices = StoreAvailabilityWatcher.noticeCount
        ledger.loadAtInitialization()
        overrides.applyOverridesAtInitialization()
        StoreRegistry.publish(self)
        // Protected data became available while this object loaded, before it was live.
        if StoreAvailabilityWatcher.noticeCount != availabilityNotices { ledger.reloadIfStoreBecameAvailable() }
    }

    /// Whether this class decodes securely: `true`, and each subclass inherits it.
    ///
    /// `NSKeyedUnarchiver` on Apple platforms accepts a subclass (which has its own synthesized
    /// `init(coder:)`) only when the subclass implements `+supportsSecureCoding` itself. The library
    /// adds that method to each subclass when its first instance is created, so decoding a subclass
    /// works without code in it. A process that decodes a subclass with `NSKeyedUnarchiver` before
    /// creating any instance of it (an extension or a helper that only reads archives) needs the
    /// override written out, one line in the subclass:
    ///
    /// ```swift
    /// override class var supportsSecureCoding: Bool { true }
    /// ```
    ///
    /// The library's own storage never uses `NSKeyedUnarchiver` and needs neither.
    open class var supportsSecureCoding: Bool { true }

    /// Decodes a settings object from another archive (see ``encode(with:)``), bound to
    /// `UserDefaults.standard`. Values that do not fit keep their developer defaults, reported by
    /// ``lastLoadError``.
    public required init?(coder: NSCoder) {
        let store = SettingsIsolationScope.store(for: .standard, of: Self.self)
        self.userDefaults = store.userDefaults
        super.init()
        attachSlots(to: store)
        resetToDeveloperDefaults()
        let decoded = coder.decodeObject(of: ArchiveFormat.foundationClasses, forKey: SecureCodingSupport.settingsKey)
        if let decoded, case .dictionary(let entries)? = StoredValue(propertyListValue: decoded) {
            var problems = LoadProblems()
            let unknown = ledger.fill(fromStored: entries) { problems.append($0) }
            ledger.recordDecoded(unknownValues: unknown, error: problems.error(key: userDefaultsKey))
        }
        StoreRegistry.publish(self)
    }

    deinit {
        if isPublished { StoreRegistry.unregister(self) }
        if isPublished { syncCoordinator.stopAtRelease() }
        announcer.finishChangeSequences()
    }

    private func attachSlots(to location: AppSettingsStore) {
        (slots, binding.layout) = SettingsLayout.attach(to: self)
        binding.key = SettingsKey(postfix: userDefaultsKeyPostfix)
        binding.store = SettingsStore(store: location, key: binding.key.name)
        ledger.startTracking()
        for slot in slots {
            if let nested = slot.nestedObject { nested.announcer.embed(in: self) }
        }
    }

    // MARK: Keys

    /// The last part of ``userDefaultsKey``; by default the subclass's name.
    ///
    /// Override it to keep the key when you rename the class, or to store two classes' sets
    /// apart. It must not be empty.
    open var userDefaultsKeyPostfix: String {
        // The layout, made once per class, holds it (an object reads it after attaching its layout).
        binding.layout.className.isEmpty ? settingsClassName(of: type(of: self)) : binding.layout.className
    }

    /// The full `UserDefaults` key of this set: `"AppSettings."` followed by ``userDefaultsKeyPostfix``.
    public final var userDefaultsKey: String { binding.key.name }

    // MARK: The shared instance

    /// The one instance of this subclass, kept in ``sharedStore``, created on first use.
    ///
    /// Each subclass has its own; it is created exactly once even when many threads ask at the
    /// same moment. Inside a test run with the `AppSettingsTesting` library's
    /// `.isolatedAppSettings` trait, it is that test's own, kept in memory.
    public static var shared: Self {
        let scope = SettingsIsolationScope.current
        let registry = scope?.sharedInstances ?? SharedInstances.process
        let instance = registry.instance(of: self) {
            // In a test's scope, the scope's store, whatever `sharedStore` returns.
            self.init(userDefaults: (scope?.store ?? self.sharedStore).userDefaults)
        }
        // The registry stores what `self.init` created for exactly this class.
        return unsafeDowncast(instance, to: self)
    }

    /// The store ``shared`` keeps its set in: ``AppSettingsStore/standard`` unless a subclass
    /// overrides it (or overrides ``sharedUserDefaults``, which it follows then).
    ///
    /// Override it to share settings with an app's extensions through an App Group:
    ///
    /// ```swift
    /// final class SharedSettings: AppSettingsObject, @unchecked Sendable {
    ///     @Setting var widgetTheme = "light"
    ///     override class var sharedStore: AppSettingsStore { .appGroup("group.com.example.app") }
    /// }
    /// ```
    ///
    /// It is read when `shared` is first used, and by the `.isolatedAppSettings` trait of
    /// `AppSettingsTesting`, which keeps every object of this store in the test's memory; each
    /// subclass has its own `shared` and reads its own override.
    open class var sharedStore: AppSettingsStore {
        // Neither overridden: each default asks the other once, and the second answers `.standard`.
        guard !SharedStoreDefaults.isResolving else { return .standard }
        return SharedStoreDefaults.$isResolving.withValue(true) { .userDefaults(sharedUserDefaults) }
    }

    /// The `UserDefaults` of ``sharedStore``: `.standard` unless a subclass overrides one of them.
    ///
    /// Overriding it, as before ``sharedStore`` existed, still decides where ``shared`` lives:
    ///
    /// ```swift
    /// override class var sharedUserDefaults: UserDefaults {
    ///     UserDefaults(appGroup: "group.com.example.app")!
    /// }
    /// ```
    ///
    /// The same override points `shared` at a scratch suite in SwiftUI previews, so that they never
    /// touch what the app stored (in tests, the `.isolatedAppSettings` trait does that for you):
    ///
    /// ```swift
    /// override class var sharedUserDefaults: UserDefaults {
    ///     if ProcessInfo.processInfo.environment["XCODE_RUNNING_FOR_PREVIEWS"] == "1" {
    ///         return UserDefaults(suiteName: "MyApp.previews")!
    ///     }
    ///     return .standard
    /// }
    /// ```
    open class var sharedUserDefaults: UserDefaults {
        guard !SharedStoreDefaults.isResolving else { return .standard }
        return SharedStoreDefaults.$isResolving.withValue(true) { sharedStore.userDefaults }
    }

    // MARK: Developer defaults and hooks

    /// Restores every setting to its developer default.
    ///
    /// The default implementation restores each `@Setting` to its declared initial value. An
    /// override may call `super` and then adjust settings; those adjustments become part of the
    /// developer defaults. On a settings object in use, the reset is prepared on a scratch copy
    /// (running your override there) and applied in one step, so other threads never see a
    /// half-reset set and observers get one notification.
    open func resetToDeveloperDefaults() {
        if !isPublished {
            _state.withLock { _ in
                // A fresh object's slots hold their developer defaults already.
                for slot in slots where !slot.holdsInitialValue && slot.nestedObject == nil {
                    _ = slot.assign(slot.initialValueForAssignment())
                    slot.holdsInitialValue = true
                }
            }
            for slot in slots { slot.nestedObject?.resetToDeveloperDefaults() }
            return
        }
        ledger.replaceValues(as: .change) { $0.resetToDeveloperDefaults() }
    }

    /// Called after values were read from storage or from a dictionary, on the object being
    /// filled, before anyone else sees the new values: check settings against each other here.
    /// What it changes after a load is an unsaved change, stored by the next save (as is a value
    /// a setting's `validate:` changed on the way in).
    ///
    /// ```swift
    /// override func checkAfterDecode() {
    ///     if maximumVolume < volume { volume = maximumVolume }
    /// }
    /// ```
    open func checkAfterDecode() {}

    /// The version of this class's stored layout; raise it when a migration is needed.
    open class var schemaVersion: Int { 0 }

    /// Migrates stored values written with an older ``schemaVersion``.
    ///
    /// Called before values are loaded when the stored schema version is lower than this class's.
    /// `values` holds the stored settings by stored name, in property-list form (`nil` as
    /// `NSNull`); change, rename or remove entries. A thrown error keeps the stored values
    /// unmigrated and is reported by ``lastLoadError``.
    ///
    /// - Parameters:
    ///   - values: The stored settings, to change in place.
    ///   - fromSchemaVersion: The schema version they were stored with.
    open func migrate(_ values: inout [String: Any], fromSchemaVersion: Int) throws {}

    // MARK: State

    /// Whether a stored setting changed since the last load or synchronization.
    public final var hasUnsavedChanges: Bool {
        ledger.hasUnsavedChanges
    }

    /// What went wrong in the last load (at initialization or in ``resetToUserDefaults()``), or
    /// `nil` if everything stored was used.
    public final var lastLoadError: AppSettingsError? {
        ledger.lastLoadError
    }

    // MARK: Reading and writing settings

    /// Reads a setting's value (an override's while one holds the setting); used by ``Setting``.
    @inlinable
    final func _readSetting<Value>(_ slot: SettingSlot<Value>) -> Value {
        // Observation keys live as long as the process (ObservationKeys keeps them): no retain.
        Unmanaged.passUnretained(slot.observationKeyPath)._withUnsafeGuaranteedRef { keyPath in
            _registrar.access(self, keyPath: keyPath)
        }
        return _state.withLock { _ in slot.visibleValue }
    }

    /// Validates and writes a setting's value; used by ``Setting``. While an override holds the
    /// setting, the user's value changes (and is saved) and readers keep seeing the override's.
    @inlinable
    final func _writeSetting<Value>(_ slot: SettingSlot<Value>, _ newValue: Value) {
        let value = slot.validate.map { $0(newValue) } ?? newValue
        let changed = _state.withLock { state in
            guard !slot.witness.isSame(slot.value, value) else { return false }
            slot.value = value
            if !slot.isConstant { state.ledger.recordChange(of: slot.index) }
            return true
        }
        if changed { _settingDidChange(slot) }
    }

    // MARK: Equality and description

    /// Equal when of the same class with the same value in every stored setting (nested
    /// settings compared by value); `const` settings are not compared.
    open override func isEqual(_ object: Any?) -> Bool {
        forms.settingsAreEqual(to: object)
    }

    /// A hash consistent with ``isEqual(_:)``: it combines the class and the stored values.
    open override var hash: Int {
        forms.settingsHash
    }

    /// The class, the key and every setting with its value, in declaration order.
    open override var description: String {
        forms.settingsDescription
    }

    /// The identity Observation tracks for the setting at `index`.
    final subscript(_observedSetting index: Int) -> Int { index }
}

/// Mutable state shared by all settings of one object, guarded by its lock (`_state`).
///
/// One lock, so that a save's snapshot takes the changes, the stored base and the cloud link in
/// one moment. Each field is one part's state, a type whose fields only that part's file sets
/// (access control): another part asks the owner, and a moment that spans parts calls each
/// part's state inside the one lock, or is a method of this type (`takeLoadState(of:)`).
@usableFromInline
struct ObjectState {
    /// What is stored and what changed (``SettingsLedger``; `_writeSetting` records a change on
    /// the path of one setting).
    @usableFromInline var ledger = LedgerState()
    /// Who hears of changes, those a running transaction holds back, and the object this one is
    /// nested in (``Announcer``).
    var announcements = Announcements()
    /// The cloud store this object syncs with, while it does (`CloudCoordinator`).
    var cloud = CloudLink()
    /// What a live object that is not nested found of overrides (launch arguments, the
    /// environment, managed configuration); `nil` for scratch copies and nested objects
    /// (`SettingsOverrides`).
    var overrides: OverrideState?
    /// What the object saw under the keys the system Settings app shows (`SettingsAppBridge`).
    var settingsApp = SettingsAppState()
}

import Foundation

// Stand-ins for Foundation's NSUbiquitousKeyValueStore (Apple platforms only), so that the
// library's Apple-only adapter compiles on Linux. Signatures only, as Swift imports them, read
// from the SDK header Foundation.framework/Headers/NSUbiquitousKeyValueStore.h (2011-2019
// revision, NS_HEADER_AUDIT_BEGIN(nullability, sendability): the class is not Sendable) and from
// the Swift declarations of Apple's documentation of each symbol. The bodies do nothing: this
// module is compiled, never run.

/// Foundation.framework/Headers/NSUbiquitousKeyValueStore.h:
/// `@interface NSUbiquitousKeyValueStore : NSObject`
open class NSUbiquitousKeyValueStore: NSObject {
    /// `@property (class, readonly, strong) NSUbiquitousKeyValueStore *defaultStore;`
    open class var `default`: NSUbiquitousKeyValueStore { NSUbiquitousKeyValueStore() }

    /// `- (nullable id)objectForKey:(NSString *)aKey;`
    open func object(forKey aKey: String) -> Any? { nil }
    /// `- (void)setObject:(nullable id)anObject forKey:(NSString *)aKey;`
    open func set(_ anObject: Any?, forKey aKey: String) {}
    /// `- (void)removeObjectForKey:(NSString *)aKey;`
    open func removeObject(forKey aKey: String) {}

    /// `- (nullable NSString *)stringForKey:(NSString *)aKey;`
    open func string(forKey aKey: String) -> String? { nil }
    /// `- (nullable NSArray *)arrayForKey:(NSString *)aKey;`
    open func array(forKey aKey: String) -> [Any]? { nil }
    /// `- (nullable NSDictionary<NSString *, id> *)dictionaryForKey:(NSString *)aKey;`
    open func dictionary(forKey aKey: String) -> [String: Any]? { nil }
    /// `- (nullable NSData *)dataForKey:(NSString *)aKey;`
    open func data(forKey aKey: String) -> Data? { nil }
    /// `- (long long)longLongForKey:(NSString *)aKey;`
    open func longLong(forKey aKey: String) -> Int64 { 0 }
    /// `- (double)doubleForKey:(NSString *)aKey;`
    open func double(forKey aKey: String) -> Double { 0 }
    /// `- (BOOL)boolForKey:(NSString *)aKey;`
    open func bool(forKey aKey: String) -> Bool { false }

    /// `- (void)setString:(nullable NSString *)aString forKey:(NSString *)aKey;`
    open func set(_ aString: String?, forKey aKey: String) {}
    /// `- (void)setData:(nullable NSData *)aData forKey:(NSString *)aKey;`
    open func set(_ aData: Data?, forKey aKey: String) {}
    /// `- (void)setArray:(nullable NSArray *)anArray forKey:(NSString *)aKey;`
    open func set(_ anArray: [Any]?, forKey aKey: String) {}
    /// `- (void)setDictionary:(nullable NSDictionary<NSString *, id> *)aDictionary forKey:(NSString *)aKey;`
    open func set(_ aDictionary: [String: Any]?, forKey aKey: String) {}
    /// `- (void)setLongLong:(long long)value forKey:(NSString *)aKey;`
    open func set(_ value: Int64, forKey aKey: String) {}
    /// `- (void)setDouble:(double)value forKey:(NSString *)aKey;`
    open func set(_ value: Double, forKey aKey: String) {}
    /// `- (void)setBool:(BOOL)value forKey:(NSString *)aKey;`
    open func set(_ value: Bool, forKey aKey: String) {}

    /// `@property (readonly, copy) NSDictionary<NSString *, id> *dictionaryRepresentation;`
    open var dictionaryRepresentation: [String: Any] { [:] }

    /// `- (BOOL)synchronize;`
    open func synchronize() -> Bool { false }
}

extension NSUbiquitousKeyValueStore {
    /// `FOUNDATION_EXPORT NSNotificationName const NSUbiquitousKeyValueStoreDidChangeExternallyNotification;`
    /// Swift imports it as `class let didChangeExternallyNotification: NSNotification.Name`; an
    /// extension in source cannot declare a `class let`, and a `static let` is used alike.
    public static let didChangeExternallyNotification = NSNotification.Name(
        "NSUbiquitousKeyValueStoreDidChangeExternallyNotification")
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// `FOUNDATION_EXPORT NSString * const NSUbiquitousKeyValueStoreChangeReasonKey;`
public let NSUbiquitousKeyValueStoreChangeReasonKey: String = "NSUbiquitousKeyValueStoreChangeReasonKey"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// `FOUNDATION_EXPORT NSString * const NSUbiquitousKeyValueStoreChangedKeysKey;`
public let NSUbiquitousKeyValueStoreChangedKeysKey: String = "NSUbiquitousKeyValueStoreChangedKeysKey"

// `NS_ENUM(NSInteger) { … }` without a type name: each constant is imported as a global `Int`.
// Apple's names are kept exactly, against the format's lowerCamelCase rule.

// swift-format-ignore: AlwaysUseLowerCamelCase
/// `NSUbiquitousKeyValueStoreServerChange` (the first constant of the anonymous enum).
public var NSUbiquitousKeyValueStoreServerChange: Int { 0 }
// swift-format-ignore: AlwaysUseLowerCamelCase
/// `NSUbiquitousKeyValueStoreInitialSyncChange`.
public var NSUbiquitousKeyValueStoreInitialSyncChange: Int { 1 }
// swift-format-ignore: AlwaysUseLowerCamelCase
/// `NSUbiquitousKeyValueStoreQuotaViolationChange`.
public var NSUbiquitousKeyValueStoreQuotaViolationChange: Int { 2 }
// swift-format-ignore: AlwaysUseLowerCamelCase
/// `NSUbiquitousKeyValueStoreAccountChange`.
public var NSUbiquitousKeyValueStoreAccountChange: Int { 3 }

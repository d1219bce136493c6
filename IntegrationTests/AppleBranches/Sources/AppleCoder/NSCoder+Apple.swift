// swift-format-ignore-file
// (Apple's names and declarations, as its SDK spells them.)
// Apple's `NSCoder` and `NSSecureCoding`, as Swift sees them on Apple platforms, declared in this
// module so that they shadow swift-corelibs-foundation's here: the decoder's Apple branch
// (`SecureArchiveDecoder.swift`, linked into this target) overrides Apple's members, which Linux's
// NSCoder does not have. Signatures from the Foundation interface of Apple's SDK as printed by
// Xcode ("Generated Interface" of NSCoder.h) and Apple's documentation of NSCoder: the refined
// members (NS_REFINED_FOR_SWIFT) under their `__` names, `allowedClasses` as `Set<AnyHashable>?`,
// `decodePropertyList()` on macOS only. Nothing here runs: the target is compiled, not executed.

import Foundation

open class NSCoder: NSObject {
    public enum DecodingFailurePolicy: Int {
        case raiseException
        case setErrorAndReturn
    }

    open func decodeValue(ofObjCType type: UnsafePointer<CChar>, at data: UnsafeMutableRawPointer, size: Int) {}
    open func decodeData() -> Data? { nil }
    open func version(forClassName className: String) -> Int { 0 }
    open func decodeObject() -> Any? { nil }
    open func decodeBytes(withReturnedLength lengthp: UnsafeMutablePointer<Int>) -> UnsafeMutableRawPointer? { nil }
    open var systemVersion: UInt32 { 0 }
    open var allowsKeyedCoding: Bool { false }
    open func containsValue(forKey key: String) -> Bool { false }
    open func decodeObject(forKey key: String) -> Any? { nil }
    open func decodeBool(forKey key: String) -> Bool { false }
    open func decodeCInt(forKey key: String) -> Int32 { 0 }
    open func decodeInt32(forKey key: String) -> Int32 { 0 }
    open func decodeInt64(forKey key: String) -> Int64 { 0 }
    open func decodeFloat(forKey key: String) -> Float { 0 }
    open func decodeDouble(forKey key: String) -> Double { 0 }
    open func decodeBytes(forKey key: String, returnedLength lengthp: UnsafeMutablePointer<Int>?) -> UnsafePointer<
        UInt8
    >? {
        nil
    }
    open func decodeInteger(forKey key: String) -> Int { 0 }
    open var requiresSecureCoding: Bool { false }
    open func __decodeObject(ofClasses classes: Set<AnyHashable>?, forKey key: String) -> Any? { nil }
    open func __decodeArrayOfObjects(ofClasses classes: Set<AnyHashable>, forKey key: String) -> [Any]? { nil }
    open func __decodeDictionary(
        withKeysOfClasses keyClasses: Set<AnyHashable>,
        objectsOfClasses objectClasses: Set<AnyHashable>,
        forKey key: String
    ) -> [AnyHashable: Any]? { nil }
    open func decodePropertyList(forKey key: String) -> Any? { nil }
    open var allowedClasses: Set<AnyHashable>? { nil }
    open func failWithError(_ error: any Error) {}
    open var decodingFailurePolicy: NSCoder.DecodingFailurePolicy { .raiseException }
    open var error: (any Error)? { nil }
    @available(macOS, introduced: 10.0, deprecated: 100000)
    open func decodeValue(ofObjCType type: UnsafePointer<CChar>, at data: UnsafeMutableRawPointer) {}
    #if APPLE_STAND_INS_MACOS
        // macOS only (NSCoder.h: API_UNAVAILABLE(ios, watchos, tvos)); the check compiles the
        // decoder a second time as macOS builds it.
        open func decodePropertyList() -> Any? { nil }
    #endif
}

public protocol NSSecureCoding: NSCoding {
    static var supportsSecureCoding: Bool { get }
}

public protocol NSCoding {
    init?(coder: NSCoder)
}

// swift-format-ignore-file
// (Apple's names and declarations, as its SDK spells them.)
// Stand-ins of the Objective-C runtime functions the library calls, with the Swift signatures of
// Apple's documentation (developer.apple.com/documentation/objectivec: class_getClassMethod(_:_:),
// object_getClass(_:), class_addMethod(_:_:_:_:), method_getImplementation(_:),
// method_getTypeEncoding(_:); IMP and Method are OpaquePointer) and of
// iPhoneOS18.0.sdk/usr/lib/swift/ObjectiveC.swiftmodule/arm64-apple-ios.swiftinterface (Selector).
// NSSelectorFromString is Foundation's (documentation/foundation/nsselectorfromstring(_:)).
//
// Implemented as a table of class methods: a class "implements" a selector once a test or
// `class_addMethod` put it there; `class_getClassMethod` looks up the class, then its superclasses.
// `object_getClass` of a class returns the class itself (Linux has no metaclass objects), so the
// table holds class methods only.

import Foundation

@frozen public struct Selector: ExpressibleByStringLiteral, @unchecked Sendable, Hashable {
    let name: String
    public init(_ str: String) { name = str }
    public init(stringLiteral value: String) { name = value }
}

public typealias IMP = OpaquePointer
public typealias Method = OpaquePointer

public func NSSelectorFromString(_ aSelectorName: String) -> Selector { Selector(aSelectorName) }

public func class_getClassMethod(_ cls: AnyClass?, _ name: Selector) -> Method? {
    ClassMethodTable.shared.method(of: cls, name)
}

public func object_getClass(_ obj: Any?) -> AnyClass? {
    if let cls = obj as? AnyClass { return cls }
    return obj.map { type(of: $0 as AnyObject) }
}

public func class_addMethod(_ cls: AnyClass?, _ name: Selector, _ imp: IMP, _ types: UnsafePointer<CChar>?) -> Bool {
    ClassMethodTable.shared.add(imp, name, to: cls)
}

public func method_getImplementation(_ m: Method) -> IMP { ClassMethodTable.shared.implementation(of: m) }

public func method_getTypeEncoding(_ m: Method) -> UnsafePointer<CChar>? { ClassMethodTable.typeEncoding }

/// The stand-in runtime's class methods.
public final class ClassMethodTable: @unchecked Sendable {
    public static let shared = ClassMethodTable()
    nonisolated(unsafe) static let typeEncoding: UnsafePointer<CChar>? = UnsafePointer(strdup("c16@0:8"))

    private let lock = NSLock()
    /// Methods by class and selector; a Method is the address of its entry's box.
    private var methods: [ObjectIdentifier: [Selector: MethodBox]] = [:]

    final class MethodBox {
        let implementation: IMP
        init(_ implementation: IMP) { self.implementation = implementation }
        var method: Method { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }
    }

    /// Gives `cls` an implementation of `name` of its own (as a class that overrides it has).
    public func implement(_ name: Selector, in cls: AnyClass, with implementation: IMP) {
        lock.lock()
        defer { lock.unlock() }
        methods[ObjectIdentifier(cls), default: [:]][name] = MethodBox(implementation)
    }

    /// The implementation `cls` has of its own, if any.
    public func ownImplementation(of name: Selector, in cls: AnyClass) -> IMP? {
        lock.lock()
        defer { lock.unlock() }
        return methods[ObjectIdentifier(cls)]?[name]?.implementation
    }

    func method(of cls: AnyClass?, _ name: Selector) -> Method? {
        lock.lock()
        defer { lock.unlock() }
        var current: AnyClass? = cls
        while let next = current {
            if let box = methods[ObjectIdentifier(next)]?[name] { return box.method }
            current = class_getSuperclass(next)
        }
        return nil
    }

    func add(_ implementation: IMP, _ name: Selector, to cls: AnyClass?) -> Bool {
        guard let cls else { return false }
        lock.lock()
        defer { lock.unlock() }
        guard methods[ObjectIdentifier(cls)]?[name] == nil else { return false }
        methods[ObjectIdentifier(cls), default: [:]][name] = MethodBox(implementation)
        return true
    }

    func implementation(of method: Method) -> IMP {
        Unmanaged<MethodBox>.fromOpaque(UnsafeRawPointer(method)).takeUnretainedValue().implementation
    }
}

/// The superclass of `cls` (the runtime's `class_getSuperclass`).
public func class_getSuperclass(_ cls: AnyClass?) -> AnyClass? {
    cls.flatMap { _getSuperclass($0) }
}

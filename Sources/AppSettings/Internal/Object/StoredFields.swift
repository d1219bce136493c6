import Foundation

/// The stored properties of a class, superclasses' first: each one's name, offset in an instance
/// and type, read from the Swift runtime's field metadata.
///
/// `Mirror` reads the same metadata, but first asks whether the object is `CustomReflectable` (a
/// conformance look-up through every loaded image, for the class and each superclass) and boxes
/// every property's value: at a process's first settings object of 20 settings, about 350 µs
/// against about 100 µs here. The runtime functions below are the ones the standard library's
/// own field walk (`_forEachField`, which Apple's SDKs do not make visible) calls; the Swift
/// runtime exports them on every platform since Swift 5.2, with the signatures declared below.
enum StoredFields {
    struct Field {
        var name: String
        var offset: Int
        var type: Any.Type
    }

    /// The fields of `type` (a class) declared by `type` itself and by its superclasses up to,
    /// not including, `base`, grouped by class: `type`'s own first.
    static func byClass(of type: AnyClass, upTo base: AnyClass) -> [[Field]] {
        var levels: [[Field]] = []
        var current: AnyClass? = type
        while let level = current, level != base {
            let superclass: AnyClass? = _getSuperclass(level)
            let inherited = superclass.map { recursiveFieldCount($0) } ?? 0
            levels.append((inherited..<recursiveFieldCount(level)).map { field(of: level, at: $0) })
            current = superclass
        }
        return levels
    }

    private static func field(of type: Any.Type, at index: Int) -> Field {
        var metadata = FieldMetadata()
        let fieldType = recursiveChildMetadata(type, index: index, metadata: &metadata)
        let name = metadata.name.map { String(cString: $0) } ?? ""
        metadata.freeName?(metadata.name)
        return Field(name: name, offset: recursiveChildOffset(type, index: index), type: fieldType)
    }
}

/// `_FieldReflectionMetadata` of the runtime: the field's name (released with `freeName`), and
/// whether it is a strong reference and a `var`.
private struct FieldMetadata {
    var name: UnsafePointer<CChar>?
    var freeName: (@convention(c) (UnsafePointer<CChar>?) -> Void)?
    var isStrong = false
    var isVar = false
}

// Free functions with the parameters of the runtime's functions, nothing implicit added.

/// The number of stored properties of `type` and its superclasses.
@_silgen_name("swift_reflectionMirror_recursiveCount")
private func recursiveFieldCount(_ type: Any.Type) -> Int

/// The offset in an instance of the stored property at `index` (superclasses' first).
@_silgen_name("swift_reflectionMirror_recursiveChildOffset")
private func recursiveChildOffset(_ type: Any.Type, index: Int) -> Int

/// The type of the stored property at `index`, and its name and kind in `metadata`.
@_silgen_name("swift_reflectionMirror_recursiveChildMetadata")
private func recursiveChildMetadata(
    _ type: Any.Type,
    index: Int,
    metadata: UnsafeMutablePointer<FieldMetadata>
) -> Any.Type

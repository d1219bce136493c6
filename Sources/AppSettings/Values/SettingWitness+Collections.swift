import Foundation

// The witnesses of `Optional`, `Array`, `Set` and `Dictionary`: each holds its element type's
// witness, fetched once when the collection's is made.

final class OptionalWitness<Wrapped>: SettingWitness<Wrapped?>, @unchecked Sendable {
    let wrapped: SettingWitness<Wrapped>

    init(wrapped: SettingWitness<Wrapped>) {
        self.wrapped = wrapped
        super.init()
    }

    override func storedValue(of value: Wrapped?) throws -> StoredValue {
        guard let value else { return .null }
        return try wrapped.storedValue(of: value)
    }

    /// A stored `nil` comes back as `nil`.
    override func value(from stored: StoredValue) throws -> Wrapped? {
        if case .null = stored { return nil }
        return try wrapped.value(from: stored)
    }

    /// Equal when both are `nil` or both hold the same value.
    override func isSame(_ lhs: Wrapped?, _ rhs: Wrapped?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let left?, let right?): wrapped.isSame(left, right)
        default: false
        }
    }

    /// `null` for `nil`, the wrapped type's form otherwise.
    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        value == .null ? .null : try wrapped.storedValue(fromJSONForm: value)
    }

    /// The wrapped type's text form; `nil` only from a managed `null`.
    override func overrideValue(from stored: StoredValue) throws -> Wrapped? {
        if case .null = stored { return nil }
        return try wrapped.overrideValue(from: stored)
    }

    /// The wrapped type's form, or `null`.
    override var schemaNode: SchemaNode { .optional(wrapped.schemaNode) }

    /// The wrapped type's form, read from `value` when it is not `nil`; or `null`.
    override func schemaNode(describing value: Wrapped?) -> SchemaNode {
        .optional(value.map(wrapped.schemaNode(describing:)) ?? wrapped.schemaNode)
    }
}

final class ArrayWitness<Element>: SettingWitness<[Element]>, @unchecked Sendable {
    let element: SettingWitness<Element>

    init(element: SettingWitness<Element>) {
        self.element = element
        super.init()
    }

    override func storedValue(of value: [Element]) throws -> StoredValue {
        .array(try value.map(element.storedValue(of:)))
    }

    /// A stored array (or set) whose every element fits.
    override func value(from stored: StoredValue) throws -> [Element] {
        switch stored {
        case .array(let elements), .set(let elements): return try elements.map(element.value(from:))
        default: throw StoredValueMismatch(expected: [Element].self, found: stored)
        }
    }

    /// Element by element.
    override func isSame(_ lhs: [Element], _ rhs: [Element]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in lhs.indices where !element.isSame(lhs[index], rhs[index]) { return false }
        return true
    }

    /// An array of the element type's forms.
    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        guard case .array(let elements) = value else { return value }
        return .array(try elements.map(element.storedValue(fromJSONForm:)))
    }

    /// Property-list text (`(a, b)`) or JSON (`["a", "b"]`); each element read by its type.
    override func overrideValue(from stored: StoredValue) throws -> [Element] {
        switch try OverrideText.collection(stored, of: [Element].self) {
        case .array(let elements), .set(let elements): return try elements.map(element.overrideValue(from:))
        case let other: throw StoredValueMismatch(expected: [Element].self, found: other)
        }
    }

    /// An array of the element type's form.
    override var schemaNode: SchemaNode { .array(element.schemaNode) }
}

final class SetWitness<Element: Hashable>: SettingWitness<Set<Element>>, @unchecked Sendable {
    let element: SettingWitness<Element>

    init(element: SettingWitness<Element>) {
        self.element = element
        super.init()
    }

    override func storedValue(of value: Set<Element>) throws -> StoredValue {
        .set(try value.map(element.storedValue(of:)))
    }

    /// A stored set (or array) whose every element fits.
    override func value(from stored: StoredValue) throws -> Set<Element> {
        switch stored {
        case .array(let elements), .set(let elements): return Set(try elements.map(element.value(from:)))
        default: throw StoredValueMismatch(expected: Set<Element>.self, found: stored)
        }
    }

    override func isSame(_ lhs: Set<Element>, _ rhs: Set<Element>) -> Bool { lhs == rhs }

    /// An array of the element type's forms.
    override func storedValue(fromJSONForm value: StoredValue) throws -> StoredValue {
        guard case .array(let elements) = value else { return value }
        return .set(try elements.map(element.storedValue(fromJSONForm:)))
    }

    /// Property-list text (`(a, b)`) or JSON (`["a", "b"]`); each element read by its type.
    override func overrideValue(from stored: StoredValue) throws -> Set<Element> {
        switch try OverrideText.collection(stored, of: Set<Element>.self) {
        case .array(let elements), .set(let elements): return Set(try elements.map(element.overrideValue(from:)))
        case let other: throw StoredValueMismatch(expected: Set<Element>.self, found: other)
        }
    }

    /// An array of the element type's form.
    override var schemaNode: SchemaNode { .array(element.schemaNode) }
}

final class DictionaryWitness<Value>: SettingWitness<[String: Value]>, @unchecked Sendable {
    let value: SettingWitness<Value>

    init(value: SettingWitness<Value>) {
        self.value = value
        super.init()
    }

    override func storedValue(of dictionary: [String: Value]) throws -> StoredValue {
        .dictionary(try dictionary.mapValues(value.storedValue(of:)))
    }

    /// A stored dictionary whose every value fits.
    override func value(from stored: StoredValue) throws -> [String: Value] {
        guard case .dictionary(let entries) = stored else {
            throw StoredValueMismatch(expected: [String: Value].self, found: stored)
        }
        return try entries.mapValues(value.value(from:))
    }

    /// Key by key.
    override func isSame(_ lhs: [String: Value], _ rhs: [String: Value]) -> Bool {
        lhs.count == rhs.count
            && lhs.allSatisfy { key, left in rhs[key].map { value.isSame(left, $0) } ?? false }
    }

    /// An object of the value type's forms.
    override func storedValue(fromJSONForm stored: StoredValue) throws -> StoredValue {
        guard case .dictionary(let entries) = stored else { return stored }
        return .dictionary(try entries.mapValues(value.storedValue(fromJSONForm:)))
    }

    /// Property-list text (`{key = value;}`) or JSON (`{"key": "value"}`); each value read by
    /// its type.
    override func overrideValue(from stored: StoredValue) throws -> [String: Value] {
        guard case .dictionary(let entries) = try OverrideText.collection(stored, of: [String: Value].self) else {
            throw StoredValueMismatch(expected: [String: Value].self, found: stored)
        }
        return try entries.mapValues(value.overrideValue(from:))
    }

    /// An object of the value type's form.
    override var schemaNode: SchemaNode { .dictionary(value.schemaNode) }
}

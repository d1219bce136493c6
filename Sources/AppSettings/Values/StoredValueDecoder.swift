import Foundation

// A `Decoder` over a stored value tree: how a `Codable` setting reads its JSON form (dates as
// ISO 8601 text, `Data` as base64, non-finite numbers as "nan", "inf", "-inf", every number by its
// digits, never through `Double`) as well as its stored form; and, recording what the type's
// `init(from:)` asks for at each place, how that form is described (an object's members and their
// forms, arrays' items) for the JSON Schema, the tool and the checks of documents.
//
// Described from the encoded developer default: each member read, with the type it is read as
// (`Int8`, `Date`, a nested type); a member read only when present is optional. What the default
// does not hold (a member it leaves out, the element of an empty array, the value of an empty
// dictionary) is read from made-up values (0, "", false), so that its form is known too; what even
// that cannot read is said to be undescribed, with why.

enum StoredValueDecoding {
    /// The `type` value `value` holds (its stored or its JSON form); throws `StoredValueMismatch`
    /// naming the place and the value that does not fit.
    static func decode<T: Decodable>(_ type: T.Type, from value: StoredValue) throws -> T {
        do {
            return try TreeDecoder(value: value, place: nil, context: Context(), codingPath: []).read(T.self)
        } catch let error as DecodingError {
            throw StoredValueMismatch(expectedDescription: "\(T.self): \(describe(error))", foundDescription: "")
        }
    }

    /// The form `type` reads, found by decoding `example` (its encoded developer default) and
    /// recording every request; without an example, from made-up values alone.
    static func form<T: Decodable>(of type: T.Type, example: StoredValue?) -> SchemaNode {
        let place = Place()
        let context = Context()
        context.isDescribing = true
        do {
            _ = try TreeDecoder(value: example, place: place, context: context, codingPath: []).read(T.self)
        } catch {
            return .undescribed(
                "\(T.self) cannot decode \(example == nil ? "a made-up value" : "its default"): \(error)")
        }
        return place.node
    }

    /// The tree `PropertyListEncoder` makes of `value`: a `Codable` setting's stored form.
    static func encodedTree<T: Encodable>(_ value: T) throws -> StoredValue {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        // Wrapped in an array, because property-list encoders refuse a bare scalar at the top.
        let data = try encoder.encode([value])
        let propertyList = try PropertyListSerialization.propertyList(from: data, format: nil)
        guard let elements = propertyList as? [Any], elements.count == 1,
            let stored = StoredValue(propertyListValue: elements[0])
        else {
            throw StoredValueMismatch(expected: T.self, foundDescription: "a value with no property-list form")
        }
        return stored
    }

    /// A decoding error in a sentence: where, then what.
    private static func describe(_ error: DecodingError) -> String {
        let (path, text): ([any CodingKey], String) =
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                (context.codingPath, context.debugDescription)
            case .keyNotFound(let key, let context): (context.codingPath, "missing member '\(key.stringValue)'")
            @unknown default: ([], "\(error)")
            }
        var place = path.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        if place.hasPrefix(".") { place.removeFirst() }
        return place.isEmpty ? text : "at \(place): \(text)"
    }
}

// MARK: - What is recorded

/// Shared by every decoder of one decoding.
private final class Context {
    /// Whether the form is being described: absent values are made up, and read.
    var isDescribing = false
    /// The types being decoded from made-up values, to stop a type that holds itself.
    var madeUp: [ObjectIdentifier] = []
}

/// What the type asked for at one place of the tree, while describing.
private final class Place {
    enum Kind {
        case unread
        case keyed
        case unkeyed
        case single(SchemaNode)
        case undescribed(String)
    }

    var kind = Kind.unread
    var isNullable = false
    /// A keyed container's members, with whether one was read with `decode` (required).
    var members: [String: (place: Place, isRequired: Bool)] = [:]
    var readsAllKeys = false
    var elements: [Place] = []

    func member(_ name: String, isRequired: Bool) -> Place {
        let place = members[name]?.place ?? Place()
        members[name] = (place, isRequired || members[name]?.isRequired == true)
        return place
    }

    func element(at index: Int) -> Place {
        while elements.count <= index { elements.append(Place()) }
        return elements[index]
    }

    /// The form recorded here.
    var node: SchemaNode {
        let node: SchemaNode
        switch kind {
        case .unread: node = .undescribed("its decoding reads nothing here")
        case .single(let single): node = single
        case .undescribed(let reason): node = .undescribed(reason)
        case .keyed where readsAllKeys:
            node =
                Self.one(members.values.map(\.place.node), of: "the values of an object").map { .dictionary($0) }
                ?? .dictionary(.undescribed("no value read"))
        case .keyed:
            node = .members(
                members.sorted { $0.key < $1.key }.map { name, member in
                    SchemaMember(
                        name: name, node: member.isRequired ? member.place.node : member.place.node.nullable,
                        isRequired: member.isRequired)
                })
        case .unkeyed:
            node =
                Self.one(elements.map(\.node), of: "the elements of an array").map { .array($0) }
                ?? .array(.undescribed("no element read"))
        }
        return isNullable ? node.nullable : node
    }

    /// The one form all of `nodes` share; undescribed when they differ, `nil` when there is none.
    private static func one(_ nodes: [SchemaNode], of what: String) -> SchemaNode? {
        guard let first = nodes.first else { return nil }
        return nodes.allSatisfy { $0 == first } ? first : .undescribed("\(what) are read in different forms")
    }
}

/// Thrown where an empty array's made-up element cannot be read: the array is read again without it.
private struct MadeUpElementUnread: Error {}

extension SchemaNode {
    /// The form, or `null`.
    fileprivate var nullable: SchemaNode {
        if case .optional = self { return self }
        return .optional(self)
    }
}

// MARK: - The decoder

private struct TreeDecoder: Decoder {
    /// `nil`: absent while describing, made up.
    let value: StoredValue?
    let place: Place?
    let context: Context
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Whether values that are absent are made up (and read) here.
    var makesUp: Bool { context.isDescribing && place != nil }

    /// A `T` from this place: the types the decoder reads itself, or `T`'s own `init(from:)`.
    func read<T: Decodable>(_ type: T.Type) throws -> T {
        if let scalar = try Scalars.read(T.self, from: value, at: codingPath) {
            place?.kind = .single(scalar.node)
            guard let typed = scalar.value as? T else { throw mismatch(T.self, "its own type") }
            return typed
        }
        guard context.isDescribing else { return try T(from: self) }
        let identifier = ObjectIdentifier(T.self)
        if value == nil {
            guard !context.madeUp.contains(identifier) else {
                throw mismatch(T.self, "a \(T.self) inside a \(T.self), which no example holds")
            }
            context.madeUp.append(identifier)
        }
        defer { if value == nil { context.madeUp.removeLast() } }
        let decoded: T
        do {
            decoded = try T(from: self)
        } catch is MadeUpElementUnread where place != nil {
            // Read again as it is, recording nothing more: the element's form stays undescribed.
            return try T(from: TreeDecoder(value: value, place: nil, context: context, codingPath: codingPath))
        }
        if let place, case .single(let raw) = place.kind, let choices = Scalars.choices(of: T.self) {
            place.kind = .single(.choices(raw, choices))
        }
        return decoded
    }

    func mismatch(_ type: Any.Type, _ expected: String) -> DecodingError {
        let found = value.map(JSONForm.description(of:)) ?? "nothing"
        return .typeMismatch(
            type, .init(codingPath: codingPath, debugDescription: "expected \(expected), found \(found)"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if case .unread? = place?.kind { place?.kind = .keyed }
        let entries: [String: StoredValue]?
        switch value {
        case .dictionary(let dictionary)?: entries = dictionary
        case nil where context.isDescribing: entries = nil
        default: throw mismatch([String: Any].self, "an object")
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(entries: entries, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if case .unread? = place?.kind { place?.kind = .unkeyed }
        switch value {
        case .array(let elements)?, .set(let elements)?:
            return UnkeyedContainer(elements: elements, decoder: self, probes: makesUp && elements.isEmpty)
        case nil where context.isDescribing: return UnkeyedContainer(elements: [], decoder: self, probes: makesUp)
        default: throw mismatch([Any].self, "an array")
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueContainer(decoder: self) }

    /// The decoder of a value inside this one.
    func child(_ value: StoredValue?, place: Place?, key: any CodingKey) -> TreeDecoder {
        TreeDecoder(value: value, place: place, context: context, codingPath: codingPath + [key])
    }
}

private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// `nil`: made up.
    let entries: [String: StoredValue]?
    let decoder: TreeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        // Names read from the value itself, of a fixed set (an enum with associated values): which
        // set, no reading tells.
        if Key(stringValue: "\u{0}") == nil {
            decoder.place?.kind = .undescribed(
                "it reads its members' names from the value (an enum with associated values?)")
        }
        decoder.place?.readsAllKeys = true
        let keys = (entries ?? [:]).keys.sorted().compactMap(Key.init(stringValue:))
        // A made-up key, for the form of an empty object's values.
        guard keys.isEmpty, decoder.makesUp, let key = Key(stringValue: "key") else { return keys }
        return [key]
    }

    func contains(_ key: Key) -> Bool { entries?[key.stringValue] != nil || entries == nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.place?.member(key.stringValue, isRequired: false).isNullable = true
        return entries?[key.stringValue] == .null
    }

    /// The decoder of a member: its value, made up when absent while describing.
    private func member(_ key: Key, isRequired: Bool) throws -> TreeDecoder {
        let place = decoder.place?.member(key.stringValue, isRequired: isRequired)
        let value = entries?[key.stringValue]
        if value == nil, !decoder.makesUp, isRequired {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
        }
        return decoder.child(value, place: place, key: key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try member(key, isRequired: true).read(T.self)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try optional(type, key) }

    /// A member read only when present: `nil` when absent or null.
    private func optional<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        let member = try member(key, isRequired: false)
        member.place?.isNullable = true
        switch member.value {
        case .null?: return nil
        case let value?: return try decoder.child(value, place: member.place, key: key).read(T.self)
        case nil:
            // Absent: `nil`. While describing, its form is read from a made-up value.
            guard decoder.makesUp, let place = member.place else { return nil }
            do {
                _ = try member.read(T.self)
            } catch {
                place.kind = .undescribed("\(error)")
            }
            return nil
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try member(key, isRequired: true).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try member(key, isRequired: true).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        try member(Key(stringValue: "super") ?? Key(intValue: 0)!, isRequired: true)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try member(key, isRequired: true) }

    // The scalar types' `decode` requirements are met by the generic `decode`; their
    // `decodeIfPresent` have default implementations, which would read an absent member as
    // `nil` without asking for its form, so each is met here.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optional(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optional(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optional(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try optional(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optional(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optional(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optional(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optional(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optional(type, key) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [StoredValue]
    let decoder: TreeDecoder
    /// Whether an empty array's element is made up, to read its form.
    let probes: Bool
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count + (probes ? 1 : 0) }
    var isAtEnd: Bool { currentIndex >= count ?? 0 }

    init(elements: [StoredValue], decoder: TreeDecoder, probes: Bool) {
        self.elements = elements
        self.decoder = decoder
        self.probes = probes
    }

    /// The next element's decoder (made up past the elements), and a step forward.
    private mutating func next() throws -> TreeDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath, debugDescription: "expected another element"))
        }
        defer { currentIndex += 1 }
        let value = currentIndex < elements.count ? elements[currentIndex] : nil
        return decoder.child(
            value, place: decoder.place?.element(at: currentIndex), key: IndexKey(intValue: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        decoder.place?.element(at: currentIndex).isNullable = true
        guard currentIndex < elements.count, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let element = try next()
        guard element.value == nil, let place = element.place else { return try element.read(T.self) }
        do {
            return try element.read(T.self)
        } catch {
            place.kind = .undescribed("\(error)")
            throw MadeUpElementUnread()
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: TreeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
        decoder.place?.isNullable = true
        return decoder.value == .null
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.read(T.self) }
}

// MARK: - The types the decoder reads itself

private enum Scalars {
    /// The value and form of a type read here (numbers exactly, dates from ISO 8601 text, `Data`
    /// from base64, a UUID from its text); `nil` for another type. `value` `nil`: made up.
    static func read(_ type: Any.Type, from value: StoredValue?, at path: [any CodingKey]) throws
        -> (value: Any, node: SchemaNode)?
    {
        func refused(_ node: SchemaNode) -> DecodingError {
            .typeMismatch(
                type,
                .init(
                    codingPath: path,
                    debugDescription:
                        "expected \(node.expectedText), found \(value.map(JSONForm.description(of:)) ?? "nothing")"
                ))
        }
        if let integer = type as? any FixedWidthInteger.Type {
            let node = SchemaNode.integer(integer)
            guard let value else { return (zero(of: integer), node) }
            guard let read = Self.integer(integer, from: value) else { throw refused(node) }
            return (read, node)
        }
        switch type {
        case is Bool.Type:
            guard let value else { return (false, .boolean) }
            guard case .bool(let bool) = value else { throw refused(.boolean) }
            return (bool, .boolean)
        case is String.Type:
            guard let value else { return ("", .string) }
            guard case .string(let string) = value else { throw refused(.string) }
            return (string, .string)
        case is Double.Type, is Float.Type:
            let isFloat = type is Float.Type
            let node = SchemaNode.real(isFloat: isFloat)
            guard let value else { return (isFloat ? Float(0) as Any : 0.0, node) }
            guard node.problem(with: value.jsonForm, path: "") == nil,
                let number = try? JSONForm.realNumber(value.jsonForm, for: type).withNumberTextRead.jsonNumber
            else { throw refused(node) }
            // Rounded once: a number's text to the `Float` nearest it, not through a `Double`.
            guard isFloat else { return (number, node) }
            if case .numberText(let text) = value, let single = Float(text) { return (single, node) }
            return (Float(number), node)
        case is Date.Type:
            guard let value else { return (Date(timeIntervalSinceReferenceDate: 0), .date) }
            guard case .date(let date)? = try? JSONForm.date(value, for: Date.self) else { throw refused(.date) }
            return (date, .date)
        case is Data.Type:
            guard let value else { return (Data(), .data) }
            guard case .data(let data)? = try? JSONForm.data(value, for: Data.self) else { throw refused(.data) }
            return (data, .data)
        case is UUID.Type:
            guard let value else { return (UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), .uuid) }
            switch value {
            case .uuid(let uuid): return (uuid, .uuid)
            case .string(let text): if let uuid = UUID(uuidString: text) { return (uuid, .uuid) }
            default: break
            }
            throw refused(.uuid)
        default:
            return nil
        }
    }

    /// The integer of type `I` a number is, read from its digits; `nil` when it is none.
    private static func integer<I: FixedWidthInteger>(_ type: I.Type, from value: StoredValue) -> Any? {
        switch value.exactInteger {
        case .integer(let integer)?: I(exactly: integer)
        case .unsignedInteger(let integer)?: I(exactly: integer)
        default: nil
        }
    }

    private static func zero<I: FixedWidthInteger>(of type: I.Type) -> Any { I.zero }

    /// The JSON forms of the cases of a `CaseIterable` type encoded as scalars (an enum with raw
    /// values); `nil` for another type.
    static func choices(of type: Any.Type) -> [StoredValue]? {
        guard let cases = type as? any CaseIterable.Type else { return nil }
        let values = allCases(of: cases).compactMap { ($0 as? any Encodable).flatMap { try? encoded($0) } }
        return values.isEmpty ? nil : values
    }

    private static func encoded(_ value: some Encodable) throws -> StoredValue {
        try StoredValueDecoding.encodedTree(value).jsonForm
    }
}

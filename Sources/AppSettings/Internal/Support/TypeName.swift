import Foundation

/// The name of a found value's type, for error messages: the same on every platform.
///
/// `String(describing: type(of:))` names a Foundation object by its private class on Apple
/// platforms (`__NSCFString`, `__NSCFNumber`, `__NSArrayI`). This names Foundation objects by the
/// Swift type they bridge to (`NSNumber` by the kind of number it holds), `NSNull` as `"NSNull"`,
/// and everything else by its Swift name.
func foundTypeName(of value: Any) -> String {
    guard type(of: value) is AnyObject.Type else { return String(describing: type(of: value)) }
    switch value {
    case is NSNull: return "NSNull"
    case let number as NSNumber: return numberTypeName(number)
    case is NSString: return "String"
    case is NSData: return "Data"
    case is NSDate: return "Date"
    case is NSURL: return "URL"
    case is NSUUID: return "UUID"
    case is NSArray: return "Array"
    case is NSDictionary: return "Dictionary"
    case is NSSet: return "Set"
    default: return String(describing: type(of: value))
    }
}

/// `Bool`, `Int` or `Double`, by the Objective-C type code of the number's value.
private func numberTypeName(_ number: NSNumber) -> String {
    switch String(cString: number.objCType) {
    case "c", "B": "Bool"
    case "f", "d": "Double"
    default: "Int"
    }
}

/// `String(describing: type)` for a settings class: the name its key is made of by default.
///
/// A process's first `String(describing:)` of a type costs about 200 µs (the runtime builds a
/// demangling of the type and prints it); its mangled name costs about 25 µs. For a class declared
/// at the top level of its module, the mangled name is the module's identifier, the class's, then
/// `C`, and the name is read from it as the runtime's demangler reads identifiers; any other form
/// (a nested, generic, private or local class, a name in Punycode) is described by the runtime.
func settingsClassName(of type: AnyClass) -> String {
    if let mangled = _mangledTypeName(type), let name = topLevelClassName(inMangledName: mangled) {
        // Debug builds compare with the runtime's description (the name makes the key).
        assert(name == String(describing: type), "\(mangled) read as \(name), described as \(type)")
        return name
    }
    return String(describing: type)
}

/// The class name in a mangled `<module identifier><class identifier>C`, or `nil` for any other
/// mangled name.
///
/// An identifier is a length and that many characters, or `0` and parts that are literal (a
/// length and characters) or word substitutions: a lowercase letter for the n-th word seen so
/// far in the mangled name, an uppercase one for the last substitution of the identifier, and `0`
/// ends it. Words are collected from every literal part: each run that starts with a character
/// other than a digit or `_` and ends before `_`, before an uppercase letter that follows a
/// character that is not one, or at the part's end, at least two characters long; 26 at most.
func topLevelClassName(inMangledName mangled: String) -> String? {
    var reader = MangledIdentifierReader(Array(mangled.utf8))
    guard reader.identifier() != nil, let name = reader.identifier(), reader.rest.elementsEqual("C".utf8) else {
        return nil
    }
    return name
}

/// Reads identifiers from a mangled name, collecting its words (see ``topLevelClassName(inMangledName:)``).
private struct MangledIdentifierReader {
    private let bytes: [UInt8]
    private var position = 0
    private var words: [ArraySlice<UInt8>] = []

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var rest: ArraySlice<UInt8> { bytes[position...] }

    private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private static func isLower(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
    private static func isUpper(_ byte: UInt8) -> Bool { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) }

    mutating func identifier() -> String? {
        guard let first = peek(), Self.isDigit(first) else { return nil }
        var hasSubstitutions = false
        if first == UInt8(ascii: "0") {
            position += 1
            // `00`: Punycode, left to the runtime.
            guard let next = peek(), next != UInt8(ascii: "0") else { return nil }
            hasSubstitutions = true
        }
        var name: [UInt8] = []
        repeat {
            while hasSubstitutions, let letter = peek(), Self.isLower(letter) || Self.isUpper(letter) {
                position += 1
                let index = Int(letter - (Self.isLower(letter) ? UInt8(ascii: "a") : UInt8(ascii: "A")))
                if Self.isUpper(letter) { hasSubstitutions = false }
                guard index < words.count else { return nil }
                name += words[index]
            }
            // `0` ends an identifier with substitutions (a plain one starts with another digit).
            if peek() == UInt8(ascii: "0") {
                position += 1
                break
            }
            guard let part = literalPart() else { return nil }
            name += part
            collectWords(in: part)
        } while hasSubstitutions
        guard name.allSatisfy({ $0 < 0x80 }) else { return nil }
        return String(decoding: name, as: UTF8.self)
    }

    /// A length without leading zeros, then that many characters.
    private mutating func literalPart() -> ArraySlice<UInt8>? {
        var length = 0
        let start = position
        while let byte = peek(), Self.isDigit(byte) {
            guard position > start || byte != UInt8(ascii: "0"), length < 10_000 else { return nil }
            length = length * 10 + Int(byte - UInt8(ascii: "0"))
            position += 1
        }
        guard length > 0, length <= bytes.count - position else { return nil }
        defer { position += length }
        return bytes[position..<position + length]
    }

    private mutating func collectWords(in part: ArraySlice<UInt8>) {
        var wordStart: Int?
        var previous: UInt8 = 0
        for index in part.startIndex...part.endIndex {
            let byte = index < part.endIndex ? part[index] : 0
            if let start = wordStart,
                byte == UInt8(ascii: "_") || byte == 0 || (!Self.isUpper(previous) && Self.isUpper(byte))
            {
                if index - start >= 2, words.count < 26 { words.append(part[start..<index]) }
                wordStart = nil
            }
            if wordStart == nil, byte != 0, !Self.isDigit(byte), byte != UInt8(ascii: "_") { wordStart = index }
            previous = byte
        }
    }
}

import Foundation

/// A name (a domain, a key) as one component of a path, as the library names its files:
/// characters other than letters, digits, `-`, `_`, `.` and `@` become `_`, and a name that is
/// empty or starts with `.` gets a `_` in front.
///
/// Letters and digits are `CharacterSet.alphanumerics`' (categories L, M and N), told from the
/// scalars' properties without Foundation's costly first `CharacterSet`.
func fileNameComponent(_ name: String) -> String {
    let cleaned = String(name.unicodeScalars.map { isKept($0) ? Character($0) : "_" })
    return cleaned.isEmpty || cleaned.hasPrefix(".") ? "_" + cleaned : cleaned
}

/// `path/component`, without doubling a `/` that ends `path`.
func appendingPathComponent(_ component: String, to path: String) -> String {
    path.hasSuffix("/") ? path + component : path + "/" + component
}

private func isKept(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "@": return true
    case _ where scalar.isASCII: return false
    default:
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark,
            .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }
}

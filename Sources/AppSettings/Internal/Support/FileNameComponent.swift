import Foundation

/// A name (a domain, a key) as one component of a path, as the library names its files:
/// characters other than letters, digits, `-`, `_`, `.` and `@` become `_`, and a name that is
/// empty or starts with `.` gets a `_` in front.
func fileNameComponent(_ name: String) -> String {
    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_.@"))
    let cleaned = String(name.unicodeScalars.map { allowed.contains($0) ? Character($0) : "_" })
    return cleaned.isEmpty || cleaned.hasPrefix(".") ? "_" + cleaned : cleaned
}

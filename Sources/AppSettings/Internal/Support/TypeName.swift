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

/// The name a settings class's key is made of by default: what `String(describing: type)` gives, the class's name
/// without its module or enclosing types, but without its casts (each scans the process's conformance records).
func settingsClassName(of type: AnyClass) -> String {
    _typeName(type, qualified: false)
}

import Foundation

/// One object of a binary property list, as ``BinaryPropertyListReader`` reads it and
/// ``BinaryPropertyListWriter`` writes it; containers hold the indices of other objects.
enum BinaryPropertyListObject {
    case bool(Bool)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case float(Float)
    case double(Double)
    case date(Double)
    case data(Data)
    case string(String)
    case uid(UInt64)
    case array([Int])
    case set([Int])
    case dictionary(keys: [Int], values: [Int])
}

import Foundation

/// A Swift type that can be read from a result column.
public protocol PostgresDecodable {
    /// The value of `cell`; throws a `PostgresDecodingError` naming the column when it cannot.
    static func decode(from cell: PostgresCell) throws -> Self
}

extension String: PostgresDecodable {
    /// Any column's text (json and jsonb as their text).
    public static func decode(from cell: PostgresCell) throws -> String {
        try cell.requireNonNull(String.self)
        return cell.text
    }
}

/// Reads an integer from ASCII digits without building a String.
private func decodeInteger<T: FixedWidthInteger>(_ cell: PostgresCell, as type: T.Type) throws -> T {
    try cell.requireNonNull(T.self)
    let value: T? = cell.withBytes { bytes in
        var index = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < bytes.count else { return nil }
        var value: T = 0
        while index < bytes.count {
            let digit = bytes[index] &- 48
            guard digit < 10 else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative
                ? shifted.subtractingReportingOverflow(T(digit)) : shifted.addingReportingOverflow(T(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
            index += 1
        }
        return value
    }
    guard let value else { throw cell.mismatch(T.self) }
    return value
}

extension Int: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> Int { try decodeInteger(cell, as: Int.self) }
}

extension Int64: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> Int64 { try decodeInteger(cell, as: Int64.self) }
}

extension Int32: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> Int32 { try decodeInteger(cell, as: Int32.self) }
}

extension Double: PostgresDecodable {
    /// float4, float8 and numeric; `NaN`, `Infinity` and `-Infinity` included.
    public static func decode(from cell: PostgresCell) throws -> Double {
        try cell.requireNonNull(Double.self)
        guard let value = Double(cell.text) else { throw cell.mismatch(Double.self) }
        return value
    }
}

extension Bool: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> Bool {
        try cell.requireNonNull(Bool.self)
        switch cell.text {
        case "t": return true
        case "f": return false
        default: throw cell.mismatch(Bool.self)
        }
    }
}

extension Date: PostgresDecodable {
    /// timestamptz (any offset), timestamp (read as UTC) and date (midnight UTC).
    public static func decode(from cell: PostgresCell) throws -> Date {
        try cell.requireNonNull(Date.self)
        guard let date = cell.withBytes(PostgresTimestamp.parse(bytes:)) else { throw cell.mismatch(Date.self) }
        return date
    }
}

extension UUID: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> UUID {
        try cell.requireNonNull(UUID.self)
        guard let uuid = UUID(uuidString: cell.text) else { throw cell.mismatch(UUID.self) }
        return uuid
    }
}

/// `[UInt8]` from bytea, `[String]` from text[].
extension Array: PostgresDecodable where Element: PostgresArrayElement {
    public static func decode(from cell: PostgresCell) throws -> [Element] {
        try cell.requireNonNull([Element].self)
        return try Element.decodeArray(from: cell)
    }
}

/// `nil` for NULL.
extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> Wrapped? {
        cell.isNull ? nil : try Wrapped.decode(from: cell)
    }
}

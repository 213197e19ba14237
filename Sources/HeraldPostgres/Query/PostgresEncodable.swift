import Foundation

/// A Swift value that can be sent to PostgreSQL as a bind parameter.
public protocol PostgresEncodable {
    /// The PostgreSQL type this Swift type is sent as (also the type of its NULL).
    static var postgresType: PostgresType { get }
    /// The value as a bind parameter.
    var postgresValue: PostgresValue { get }
}

extension String: PostgresEncodable {
    public static var postgresType: PostgresType { .text }
    public var postgresValue: PostgresValue { PostgresValue(type: .text, bytes: Array(utf8)) }
}

extension Int: PostgresEncodable {
    public static var postgresType: PostgresType { .int8 }
    public var postgresValue: PostgresValue { PostgresValue(type: .int8, text: String(self)) }
}

extension Int64: PostgresEncodable {
    public static var postgresType: PostgresType { .int8 }
    public var postgresValue: PostgresValue { PostgresValue(type: .int8, text: String(self)) }
}

extension Int32: PostgresEncodable {
    public static var postgresType: PostgresType { .int4 }
    public var postgresValue: PostgresValue { PostgresValue(type: .int4, text: String(self)) }
}

extension Double: PostgresEncodable {
    public static var postgresType: PostgresType { .float8 }
    public var postgresValue: PostgresValue {
        // Swift writes "inf" and "nan"; PostgreSQL's own spellings are unambiguous.
        let text: String
        if isNaN { text = "NaN" } else if self == .infinity { text = "Infinity" } else if self == -.infinity {
            text = "-Infinity"
        } else { text = "\(self)" }
        return PostgresValue(type: .float8, text: text)
    }
}

extension Bool: PostgresEncodable {
    public static var postgresType: PostgresType { .bool }
    public var postgresValue: PostgresValue { PostgresValue(type: .bool, text: self ? "t" : "f") }
}

extension Date: PostgresEncodable {
    public static var postgresType: PostgresType { .timestamptz }
    /// ISO 8601 in UTC with microseconds, PostgreSQL's own precision.
    public var postgresValue: PostgresValue {
        PostgresValue(type: .timestamptz, text: PostgresTimestamp.format(self))
    }
}

extension UUID: PostgresEncodable {
    public static var postgresType: PostgresType { .uuid }
    public var postgresValue: PostgresValue { PostgresValue(type: .uuid, text: uuidString.lowercased()) }
}

/// NULL when `nil`, typed like the wrapped value so that `$1 IS NULL` and inserts work.
extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public static var postgresType: PostgresType { Wrapped.postgresType }
    public var postgresValue: PostgresValue {
        switch self {
        case .none: return .null(Wrapped.postgresType)
        case .some(let value): return value.postgresValue
        }
    }
}

/// JSON text sent as `jsonb` (the server validates it).
public struct PostgresJSONB: PostgresEncodable, PostgresDecodable, Sendable, Hashable {
    /// The JSON document as text.
    public var text: String
    /// Wraps JSON text.
    public init(_ text: String) { self.text = text }

    public static var postgresType: PostgresType { .jsonb }
    public var postgresValue: PostgresValue { PostgresValue(type: .jsonb, text: text) }
    public static func decode(from cell: PostgresCell) throws -> PostgresJSONB {
        PostgresJSONB(try String.decode(from: cell))
    }
}

/// An element type whose arrays PostgreSQL knows: `[UInt8]` is bytea, `[String]` is text[].
///
/// (Swift allows one conditional conformance of Array per protocol; the element decides.)
public protocol PostgresArrayElement {
    /// The PostgreSQL type of an array of this element.
    static var postgresArrayType: PostgresType { get }
    /// An array of this element as a bind parameter.
    static func postgresValue(ofArray array: [Self]) -> PostgresValue
    /// An array of this element from a result cell.
    static func decodeArray(from cell: PostgresCell) throws -> [Self]
}

extension Array: PostgresEncodable where Element: PostgresArrayElement {
    public static var postgresType: PostgresType { Element.postgresArrayType }
    public var postgresValue: PostgresValue { Element.postgresValue(ofArray: self) }
}

extension UInt8: PostgresArrayElement {
    public static var postgresArrayType: PostgresType { .bytea }
    /// Sent in binary so that any byte (zero included) survives.
    public static func postgresValue(ofArray array: [UInt8]) -> PostgresValue {
        PostgresValue(type: .bytea, format: .binary, bytes: array)
    }
    public static func decodeArray(from cell: PostgresCell) throws -> [UInt8] {
        try cell.byteaValue()
    }
}

extension String: PostgresArrayElement {
    public static var postgresArrayType: PostgresType { .textArray }
    /// Elements are quoted in the array literal, so any text is safe.
    public static func postgresValue(ofArray array: [String]) -> PostgresValue {
        PostgresValue(type: .textArray, text: PostgresArrayLiteral.format(array))
    }
    public static func decodeArray(from cell: PostgresCell) throws -> [String] {
        let text = try String.decode(from: cell)
        guard let elements = PostgresArrayLiteral.parse(text) else {
            throw cell.failure(expected: [String].self, reason: "not a one-dimensional array literal")
        }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard let element else { throw cell.failure(expected: [String].self, reason: "an element is NULL") }
            strings.append(element)
        }
        return strings
    }
}

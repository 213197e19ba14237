/// A parameter as it goes to the server: its type, its format and its bytes (`nil` is SQL NULL).
///
/// Values reach the server as bind parameters of `PQexecParams`, never as SQL text.
public struct PostgresValue: Sendable, Hashable {
    /// How the bytes are to be read by the server.
    public enum Format: Int32, Sendable, Hashable {
        /// The type's text representation (what `psql` shows).
        case text = 0
        /// The type's binary representation (used for bytea, so zero bytes survive).
        case binary = 1
    }

    /// The PostgreSQL type of the parameter; `.unspecified` lets the server infer it.
    public var type: PostgresType
    /// How the server reads `bytes`.
    public var format: Format
    /// The encoded value, or `nil` for NULL.
    public var bytes: [UInt8]?

    /// A value with an explicit type and format.
    public init(type: PostgresType, format: Format = .text, bytes: [UInt8]?) {
        self.type = type
        self.format = format
        self.bytes = bytes
    }

    /// A value given in its text representation.
    public init(type: PostgresType, text: String) {
        self.init(type: type, format: .text, bytes: Array(text.utf8))
    }

    /// SQL NULL of the given type.
    public static func null(_ type: PostgresType = .unspecified) -> PostgresValue {
        PostgresValue(type: type, format: .text, bytes: nil)
    }
}

/// A PostgreSQL type, by its object id (the `oid` column of `pg_type`).
public struct PostgresType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The type's oid.
    public var rawValue: UInt32
    /// A type by oid.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Let the server infer the type from the query.
    public static let unspecified = PostgresType(rawValue: 0)
    public static let bool = PostgresType(rawValue: 16)
    public static let bytea = PostgresType(rawValue: 17)
    public static let int8 = PostgresType(rawValue: 20)
    public static let int2 = PostgresType(rawValue: 21)
    public static let int4 = PostgresType(rawValue: 23)
    public static let text = PostgresType(rawValue: 25)
    public static let json = PostgresType(rawValue: 114)
    public static let float4 = PostgresType(rawValue: 700)
    public static let float8 = PostgresType(rawValue: 701)
    public static let varchar = PostgresType(rawValue: 1043)
    public static let date = PostgresType(rawValue: 1082)
    public static let timestamp = PostgresType(rawValue: 1114)
    public static let timestamptz = PostgresType(rawValue: 1184)
    public static let numeric = PostgresType(rawValue: 1700)
    public static let uuid = PostgresType(rawValue: 2950)
    public static let jsonb = PostgresType(rawValue: 3802)
    public static let textArray = PostgresType(rawValue: 1009)

    private static let names: [UInt32: String] = [
        0: "unspecified", 16: "bool", 17: "bytea", 20: "int8", 21: "int2", 23: "int4", 25: "text",
        114: "json", 700: "float4", 701: "float8", 1043: "varchar", 1082: "date", 1114: "timestamp",
        1184: "timestamptz", 1700: "numeric", 2950: "uuid", 3802: "jsonb", 1009: "text[]",
    ]

    /// The type's name when it is one of the well-known types, else `oid N`.
    public var description: String { Self.names[rawValue] ?? "oid \(rawValue)" }
}

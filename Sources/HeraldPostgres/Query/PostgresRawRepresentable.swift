/// A string-backed enum (a status, a role) opts in with an empty conformance and is sent and read
/// as its raw text; an unknown text in a row is a decoding error naming the column, never a guess.
extension PostgresEncodable where Self: RawRepresentable, RawValue == String {
    public static var postgresType: PostgresType { .text }
    public var postgresValue: PostgresValue { rawValue.postgresValue }
}

extension PostgresDecodable where Self: RawRepresentable, RawValue == String {
    public static func decode(from cell: PostgresCell) throws -> Self {
        guard let value = Self(rawValue: try String.decode(from: cell)) else { throw cell.mismatch(Self.self) }
        return value
    }
}

extension PostgresArrayElement where Self: RawRepresentable, RawValue == String {
    public static var postgresArrayType: PostgresType { .textArray }
    public static func postgresValue(ofArray array: [Self]) -> PostgresValue { String.postgresValue(ofArray: array.map(\.rawValue)) }
    public static func decodeArray(from cell: PostgresCell) throws -> [Self] {
        try String.decodeArray(from: cell).map { text in
            guard let value = Self(rawValue: text) else { throw cell.mismatch([Self].self) }
            return value
        }
    }
}

extension PostgresQuery.StringInterpolation {
    /// A fragment of SQL with no binds of its own (a column list built from literals), spliced as is.
    public mutating func appendInterpolation(fragment: PostgresQuery) {
        precondition(fragment.binds.isEmpty, "a spliced SQL fragment must not carry binds")
        sql += fragment.sql
    }
}

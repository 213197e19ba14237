import CLibPQ

/// One value of a row, in PostgreSQL's text format, as a `PostgresDecodable` type sees it.
public struct PostgresCell {
    let result: PostgresResult
    let row: Int
    let column: Int

    /// True for SQL NULL.
    public var isNull: Bool { PQgetisnull(result.pointer, Int32(row), Int32(column)) == 1 }

    /// The column's name.
    public var columnName: String { result.columnName(column) }

    /// The column's PostgreSQL type.
    public var type: PostgresType { PostgresType(rawValue: UInt32(PQftype(result.pointer, Int32(column)))) }

    /// The value's text; "" for NULL.
    public var text: String { String(cString: PQgetvalue(result.pointer, Int32(row), Int32(column))) }

    /// Calls `body` with the value's bytes (valid only during the call).
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let length = Int(PQgetlength(result.pointer, Int32(row), Int32(column)))
        guard let start = PQgetvalue(result.pointer, Int32(row), Int32(column)) else {
            return try body(UnsafeBufferPointer(start: nil, count: 0))
        }
        return try start.withMemoryRebound(to: UInt8.self, capacity: length) {
            try body(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// The error for a value that cannot become `expected`.
    public func failure<T>(expected: T.Type, reason: String) -> PostgresDecodingError {
        PostgresDecodingError(column: columnName, expected: "\(expected)", reason: reason)
    }

    /// The error for a value whose text is not a `T`.
    public func mismatch<T>(_ expected: T.Type) -> PostgresDecodingError {
        failure(expected: expected, reason: "the value (PostgreSQL type \(type)) is not a valid \(expected)")
    }

    /// Throws unless the value is non-NULL.
    public func requireNonNull<T>(_ expected: T.Type) throws {
        if isNull { throw failure(expected: expected, reason: "the value is NULL") }
    }

    /// A bytea in the hex (`\x…`) or escape output format, via `PQunescapeBytea`.
    func byteaValue() throws -> [UInt8] {
        try requireNonNull([UInt8].self)
        var length = 0
        guard let bytes = PQunescapeBytea(PQgetvalue(result.pointer, Int32(row), Int32(column)), &length) else {
            throw failure(expected: [UInt8].self, reason: "libpq could not unescape the bytea")
        }
        defer { PQfreemem(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }
}

import CLibPQ

/// One row of a result. Decode its columns by name, by index, or all at once as a tuple.
public struct PostgresRow {
    let result: PostgresResult
    let row: Int

    /// The number of columns.
    public var columnCount: Int { result.columnCount }

    /// The column at `index` (0-based) as `type`.
    public func decode<T: PostgresDecodable>(_ type: T.Type, at index: Int) throws -> T {
        guard index >= 0, index < result.columnCount else {
            throw PostgresDecodingError(
                column: "#\(index)", expected: "\(T.self)", reason: "the row has \(result.columnCount) columns")
        }
        return try T.decode(from: PostgresCell(result: result, row: row, column: index))
    }

    /// The column named exactly `column` as `type`.
    public func decode<T: PostgresDecodable>(_ type: T.Type, column: String) throws -> T {
        guard let index = result.columnIndex(named: column) else {
            throw PostgresDecodingError(column: column, expected: "\(T.self)", reason: "the result has no such column")
        }
        return try T.decode(from: PostgresCell(result: result, row: row, column: index))
    }

    /// The columns, in order, as a tuple: `let (id, name) = try row.decode((Int64, String?).self)`.
    /// The row must have exactly as many columns as the tuple.
    public func decode<each T: PostgresDecodable>(_ types: (repeat each T).Type) throws -> (repeat each T) {
        var expected = 0
        for _ in repeat (each T).self { expected += 1 }
        guard expected == result.columnCount else {
            throw PostgresDecodingError(
                column: "*", expected: "\(types)",
                reason: "the row has \(result.columnCount) columns, the tuple \(expected)")
        }
        var index = 0
        func next<U: PostgresDecodable>(_ type: U.Type) throws -> U {
            defer { index += 1 }
            return try U.decode(from: PostgresCell(result: result, row: row, column: index))
        }
        return (repeat try next((each T).self))
    }

    /// The named columns, in the order named, as a tuple:
    /// `let (id, name) = try row.decode((Int64, String?).self, columns: "id", "name")`. Each column
    /// is found by its name (the one in its place in the list, else the first of that name), so a
    /// SELECT that lists them in another order reads the same, and one that lacks a name throws,
    /// naming it. The names are looked up once per result, not per row.
    public func decode<each T: PostgresDecodable>(_ types: (repeat each T).Type, columns names: String...) throws -> (repeat each T) {
        try decode(types, columns: names)
    }

    /// `decode(_:columns:)` with the names in an array: a record read on a hot path names its
    /// columns once (`static let`), not once per row.
    public func decode<each T: PostgresDecodable>(_ types: (repeat each T).Type, columns names: [String]) throws -> (repeat each T) {
        var expected = 0
        for _ in repeat (each T).self { expected += 1 }
        guard expected == names.count else {
            throw PostgresDecodingError(column: "*", expected: "\(types)", reason: "the tuple has \(expected) members and \(names.count) columns are named")
        }
        let indexes = try result.columnIndexes(of: names)
        var position = 0
        func next<U: PostgresDecodable>(_ type: U.Type) throws -> U {
            defer { position += 1 }
            return try U.decode(from: PostgresCell(result: result, row: row, column: indexes[position]))
        }
        return (repeat try next((each T).self))
    }

    /// True when the column at `index` is NULL.
    public func isNull(at index: Int) -> Bool {
        PQgetisnull(result.pointer, Int32(row), Int32(index)) == 1
    }
}

/// A decoding failure: which column, which Swift type was wanted, and why (no cell values, so
/// the message is safe for logs).
public struct PostgresDecodingError: Error, CustomStringConvertible, Sendable {
    /// The column's name (or `#index`).
    public var column: String
    /// The Swift type asked for.
    public var expected: String
    /// What went wrong.
    public var reason: String

    public init(column: String, expected: String, reason: String) {
        self.column = column
        self.expected = expected
        self.reason = reason
    }

    public var description: String {
        "cannot decode column \"\(column)\" as \(expected): \(reason)"
    }
}

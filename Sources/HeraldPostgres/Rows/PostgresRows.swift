/// The rows of a statement's result, in order.
public struct PostgresRows: RandomAccessCollection {
    let result: PostgresResult

    init(result: PostgresResult) {
        self.result = result
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { result.rowCount }

    public subscript(position: Int) -> PostgresRow {
        precondition(position >= 0 && position < endIndex, "row \(position) is out of range 0..<\(endIndex)")
        return PostgresRow(result: result, row: position)
    }

    /// The names of the result's columns, in order.
    public var columnNames: [String] { (0..<result.columnCount).map(result.columnName) }

    /// Checks once for the whole result that its columns are `names`, in this order, so that rows
    /// read by position (on a hot path, where finding each column by name in every row would
    /// cost) read the columns they mean; throws naming the first column out of its place.
    public func requireColumns(_ names: [String]) throws {
        guard result.columnCount == names.count else {
            throw PostgresDecodingError(column: "*", expected: names.joined(separator: ", "),
                                        reason: "the result has \(result.columnCount) columns, \(names.count) are named")
        }
        for (position, index) in try result.columnIndexes(of: names).enumerated() where index != position {
            throw PostgresDecodingError(column: names[position], expected: "column \(position + 1)", reason: "it is column \(index + 1)")
        }
    }

    /// The only row, or nil when there are none; throws when there are several.
    public func single() throws -> PostgresRow? {
        guard count <= 1 else {
            throw PostgresError(kind: .misuse, message: "expected at most one row, got \(count)")
        }
        return first
    }
}

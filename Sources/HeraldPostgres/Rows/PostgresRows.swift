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

    /// The only row, or nil when there are none; throws when there are several.
    public func single() throws -> PostgresRow? {
        guard count <= 1 else {
            throw PostgresError(kind: .misuse, message: "expected at most one row, got \(count)")
        }
        return first
    }
}

import CLibPQ

/// Owns a `PGresult` and frees it when the last row referring to it is gone. A result does
/// not depend on its connection, so rows stay readable after the connection is returned.
final class PostgresResult {
    let optionalPointer: OpaquePointer?
    private var columnIndexes: [String: Int]?

    init(_ pointer: OpaquePointer?) {
        optionalPointer = pointer
    }

    deinit {
        if let optionalPointer { PQclear(optionalPointer) }
    }

    /// The result; only results that passed the connection's checks are handed to rows.
    var pointer: OpaquePointer { optionalPointer! }

    var rowCount: Int { Int(PQntuples(pointer)) }
    var columnCount: Int { Int(PQnfields(pointer)) }

    func columnName(_ column: Int) -> String {
        String(cString: PQfname(pointer, Int32(column)))
    }

    /// The index of the column named exactly `name` (the first, when names repeat).
    /// Unlike `PQfnumber`, names are not folded to lower case.
    func columnIndex(named name: String) -> Int? {
        if columnIndexes == nil {
            var indexes: [String: Int] = [:]
            for column in (0..<columnCount).reversed() { indexes[columnName(column)] = column }
            columnIndexes = indexes
        }
        return columnIndexes?[name]
    }
}

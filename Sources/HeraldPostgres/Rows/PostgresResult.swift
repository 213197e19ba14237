#if canImport(Glibc)
import Glibc
#endif
import CLibPQ

/// Owns a `PGresult` and frees it when the last row referring to it is gone. A result does
/// not depend on its connection, so rows stay readable after the connection is returned.
final class PostgresResult {
    let optionalPointer: OpaquePointer?
    private var columnIndexes: [String: Int]?
    /// The last list of names resolved to indexes: rows of one result are read with one list.
    private var resolved: (names: [String], indexes: [Int])?

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

    /// The indexes of the columns named exactly `names`; throws naming the first that is missing.
    func columnIndexes(of names: [String]) throws -> [Int] {
        if let resolved, resolved.names == names { return resolved.indexes }
        let indexes = try names.enumerated().map { position, name in
            // Usually the SELECT lists them in the order read: a look at that column first.
            if position < columnCount, hasName(name, column: position) { return position }
            guard let index = columnIndex(named: name) else {
                throw PostgresDecodingError(column: name, expected: "a column", reason: "the result has no such column")
            }
            return index
        }
        resolved = (names, indexes)
        return indexes
    }

    private func hasName(_ name: String, column: Int) -> Bool {
        guard let field = PQfname(pointer, Int32(column)) else { return false }
        return name.withCString { strcmp($0, field) == 0 }
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

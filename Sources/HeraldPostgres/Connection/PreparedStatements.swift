import CLibPQ

/// The statements one connection has prepared on its server, by SQL text and parameter types,
/// least recently used first out when the bound is reached.
///
/// A repeated query then costs the server neither parsing nor planning (it may settle on a generic
/// plan after a few runs), and the SQL text is not sent again.
struct PreparedStatements {
    struct Key: Hashable {
        let sql: String
        /// The same text with other parameter types is another statement: types are fixed at PREPARE.
        let types: [Oid]

        /// Hashes the length and the ends of the text, not all of it: the application's queries are
        /// long and few, so this tells them apart for a fraction of the cost, and equality still
        /// compares the whole text.
        func hash(into hasher: inout Hasher) {
            var sql = sql
            sql.withUTF8 { bytes in
                hasher.combine(bytes.count)
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<min(bytes.count, 32)])))
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[max(0, bytes.count - 96)...])))
            }
            hasher.combine(types)
        }
    }

    private struct Statement {
        let name: String
        var lastUse: UInt64
    }

    /// The most statements kept; 0 prepares nothing.
    let limit: Int
    private var statements: [Key: Statement] = [:]
    private var uses: UInt64 = 0
    private var nextNumber = 0

    init(limit: Int) { self.limit = max(0, limit) }

    var count: Int { statements.count }

    /// The name the statement was prepared under, marking it used; nil when it is not prepared.
    mutating func name(for key: Key) -> String? {
        guard let index = statements.index(forKey: key) else { return nil }
        uses += 1
        statements.values[index].lastUse = uses
        return statements.values[index].name
    }

    /// A name no statement of this connection has had.
    mutating func newName() -> String {
        nextNumber += 1
        return "herald_\(nextNumber)"
    }

    /// Records a statement the server has prepared; returns the name of the one that must now be
    /// deallocated to stay within the bound, if any.
    mutating func insert(_ key: Key, name: String) -> String? {
        uses += 1
        statements[key] = Statement(name: name, lastUse: uses)
        guard statements.count > limit, let oldest = statements.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return nil }
        statements[oldest.key] = nil
        return oldest.value.name
    }

    /// Forgets a statement (the server no longer has it, or must not keep it); returns its name.
    mutating func remove(_ key: Key) -> String? {
        statements.removeValue(forKey: key)?.name
    }

    mutating func removeAll() { statements.removeAll() }

    /// Only plain data statements are worth preparing; utility statements (BEGIN, SET, LISTEN,
    /// DDL) run once or change what a plan would depend on.
    static func isPreparable(_ sql: String) -> Bool {
        let utf8 = sql.utf8
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == UInt8(ascii: "(") }
        guard let start = utf8.firstIndex(where: { !isSpace($0) }) else { return false }
        let rest = utf8[start...]
        return preparableKeywords.contains { keyword in
            guard rest.count >= keyword.count, zip(rest, keyword).allSatisfy({ $0 | 0x20 == $1 }) else { return false }
            // The keyword must be the whole word: "selection" is no SELECT.
            guard let next = rest.dropFirst(keyword.count).first else { return true }
            return !((next | 0x20) >= UInt8(ascii: "a") && (next | 0x20) <= UInt8(ascii: "z")) && next != UInt8(ascii: "_")
        }
    }

    private static let preparableKeywords: [[UInt8]] = ["select", "insert", "update", "delete", "with", "values"].map { Array($0.utf8) }
}

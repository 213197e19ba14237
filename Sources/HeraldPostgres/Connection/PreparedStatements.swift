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

    /// Only plain data statements are worth preparing; utility statements (BEGIN, SET, LISTEN,
    /// DDL) run once or change what a plan would depend on.
    static func isPreparable(_ sql: String) -> Bool {
        var sql = sql
        return sql.withUTF8 { bytes in
            let isLetter = { (byte: UInt8) in (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
            var index = 0
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D
                || bytes[index] == 0x09 || bytes[index] == UInt8(ascii: "(") {
                index += 1
            }
            // The first word, lower-cased, packed into an integer; a word longer than any keyword is none.
            var word: UInt64 = 0
            var length = 0
            while index < bytes.count, isLetter(bytes[index]) {
                guard length < 6 else { return false }
                word = word << 8 | UInt64(bytes[index] | 0x20)
                length += 1
                index += 1
            }
            if index < bytes.count && bytes[index] == UInt8(ascii: "_") { return false }
            return preparableKeywords.contains(word)
        }
    }

    private static let preparableKeywords: [UInt64] = ["select", "insert", "update", "delete", "with", "values"].map { keyword in
        keyword.utf8.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

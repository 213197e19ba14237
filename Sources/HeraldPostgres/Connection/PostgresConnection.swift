import CLibPQ
import Glibc

/// One libpq connection. Blocking; used by one thread at a time (it is deliberately not
/// `Sendable`); a `PostgresPool` hands connections to threads.
///
/// Every statement goes through `PQexecParams`: values travel as bind parameters, never as SQL text.
public final class PostgresConnection {
    private var handle: OpaquePointer?
    private var statements: PreparedStatements

    /// Connects with a `postgresql://` URL or a libpq conninfo string (`host=… dbname=…`).
    /// Without a `connect_timeout` in the URL, connecting gives up after 10 seconds.
    ///
    /// Data statements (SELECT, INSERT, UPDATE, DELETE, WITH, VALUES) are prepared on the
    /// connection the first time they run and executed by name afterwards, keeping the
    /// `preparedStatements` most recently used; 0 turns this off (for a pooler in transaction
    /// mode, which cannot keep a statement on one server connection).
    public init(url: String, preparedStatements: Int = PostgresConnection.defaultPreparedStatements) throws {
        statements = PreparedStatements(limit: preparedStatements)
        // connect_timeout first: a value in the URL (expanded from dbname) overrides it.
        let keywords = ["connect_timeout", "fallback_application_name", "dbname"]
        let values = ["10", "herald", url]
        let connection = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else {
            throw PostgresError(kind: .connection, message: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let text = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(kind: .connection, message: text, libpqMessage: text)
        }
        handle = connection
        // Notices (e.g. "drop cascades to …") would go to stderr by default; they are not errors.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        // Results are parsed in the ISO date style and in UTF-8, whatever the server's defaults.
        // JIT off: Herald's statements are short, and a correlated subquery's inflated cost estimate
        // made the server spend 250 ms compiling a statement that ran in 50 ms (the workers'
        // "when is the next delivery due" after an empty claim, over a run of 100,000).
        try executeScript("SET DateStyle TO 'ISO, MDY'; SET client_encoding TO 'UTF8'; SET jit TO off")
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Enough for every query the application repeats; each costs the server a little memory.
    public static let defaultPreparedStatements = 256

    /// How many statements this connection has prepared and keeps (for tests and metrics).
    public var preparedStatementCount: Int { statements.count }

    /// Closes the connection; later calls throw. Closing twice is harmless.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Runs a statement and returns its rows.
    public func query(_ query: PostgresQuery) throws -> PostgresRows {
        PostgresRows(result: try execute(query: query))
    }

    /// Runs a statement and returns the number of rows it affected (`PQcmdTuples`; 0 when the
    /// statement does not report a count).
    @discardableResult
    public func execute(_ query: PostgresQuery) throws -> Int {
        let result = try execute(query: query)
        return Int(String(cString: PQcmdTuples(result.pointer))) ?? 0
    }

    /// Runs `body` in a transaction: COMMIT when it returns, ROLLBACK when it throws (the
    /// error is rethrown). Transactions do not nest.
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        // A nested BEGIN is only a warning, and the inner COMMIT would commit the outer work.
        guard !isInTransaction else {
            throw PostgresError(kind: .misuse, message: "a transaction is already open on this connection; transactions do not nest")
        }
        try execute("BEGIN")
        let value: T
        do {
            value = try body(self)
        } catch {
            if isOpen { _ = try? execute("ROLLBACK") }
            throw error
        }
        // COMMIT of a transaction in which a statement failed (and `body` caught the error)
        // succeeds with the tag ROLLBACK: that must not pass for a commit.
        let commit = try execute(query: "COMMIT")
        guard String(cString: PQcmdStatus(commit.pointer)) == "COMMIT" else {
            throw PostgresError(
                kind: .misuse,
                message: "the transaction was rolled back at COMMIT because a statement in it had failed")
        }
        return value
    }

    /// Runs several statements separated by semicolons, with no parameters, through the simple
    /// query protocol (for migration files and session settings). Never build `sql` from values.
    public func executeScript(_ sql: String) throws {
        let connection = try openHandle()
        let result = PostgresResult(PQexec(connection, sql))
        try check(result, connection: connection)
    }

    /// True when the connection is open and the server has not closed it. Cheap: looks at the
    /// socket without a round trip (an idle connection the server ended is readable).
    public var isHealthy: Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return false }
        let socket = PQsocket(handle)
        guard socket >= 0 else { return false }
        // Readable while idle: notifications, or the server's goodbye message and then EOF,
        // which libpq notices only on the read after the message.
        for _ in 0..<8 {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { return true }
            guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else { return false }
        }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// True when open and libpq has not seen it break (no round trip, no socket check).
    var isUsable: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// True unless the connection has been closed.
    public var isOpen: Bool { handle != nil }

    /// True while a transaction is open (or failed and awaiting ROLLBACK).
    public var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// The server process serving this connection (`pg_backend_pid()`).
    public var backendPID: Int32 {
        guard let handle else { return 0 }
        return PQbackendPID(handle)
    }

    /// The libpq handle, for this module's listener.
    func openHandle() throws -> OpaquePointer {
        guard let handle else {
            throw PostgresError(kind: .misuse, message: "the PostgreSQL connection is closed")
        }
        return handle
    }

    private func execute(query: PostgresQuery) throws -> PostgresResult {
        let connection = try openHandle()
        let parameters = try BoundParameters(query.binds)
        guard statements.limit > 0, PreparedStatements.isPreparable(query.sql) else {
            let result = parameters.withPointers { types, values, lengths, formats in
                PostgresResult(PQexecParams(
                    connection, query.sql, Int32(query.binds.count), types, values, lengths, formats, 0))
            }
            try check(result, connection: connection)
            return result
        }
        let key = PreparedStatements.Key(sql: query.sql, types: parameters.types)
        do {
            return try executePrepared(key, parameters, connection)
        } catch let error as PostgresError where Self.planIsStale(error) {
            // The server lost the statement (DISCARD, DEALLOCATE) or its result shape changed
            // (ALTER TABLE under `SELECT *`): forget it, and prepare it afresh unless the failure
            // has aborted a transaction, which only its owner can roll back.
            let name = statements.remove(key)
            guard PQtransactionStatus(connection) == PQTRANS_IDLE else { throw error }
            if let name { _ = try? executeScript("DEALLOCATE " + name) }
            return try executePrepared(key, parameters, connection)
        }
    }

    /// Runs a statement by name, preparing it first on this connection when it is new.
    private func executePrepared(_ key: PreparedStatements.Key, _ parameters: BoundParameters,
                                 _ connection: OpaquePointer) throws -> PostgresResult {
        let name: String
        if let prepared = statements.name(for: key) {
            name = prepared
        } else {
            name = statements.newName()
            let prepared = parameters.withPointers { types, _, _, _ in
                PostgresResult(PQprepare(connection, name, key.sql, Int32(key.types.count), types))
            }
            try check(prepared, connection: connection)
            if let evicted = statements.insert(key, name: name) {
                // A failure here leaves an unused statement on the server, nothing worse.
                _ = try? executeScript("DEALLOCATE " + evicted)
            }
        }
        let result = parameters.withPointers { _, values, lengths, formats in
            PostgresResult(PQexecPrepared(connection, name, Int32(key.types.count), values, lengths, formats, 0))
        }
        try check(result, connection: connection)
        return result
    }

    /// Errors that mean a prepared statement, not the query, has gone wrong.
    private static func planIsStale(_ error: PostgresError) -> Bool {
        switch error.sqlState {
        case "26000": true  // invalid_sql_statement_name: the server does not know the name
        case "0A000": error.message.contains("cached plan must not change result type")
        default: false
        }
    }

    /// Turns a failed result into a `PostgresError`.
    private func check(_ result: PostgresResult, connection: OpaquePointer) throws {
        guard let pointer = result.optionalPointer else {
            throw connectionError(connection)
        }
        switch PQresultStatus(pointer) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            throw PostgresError(kind: .misuse, message: "COPY is not supported by PostgresConnection")
        default:
            var error = PostgresError(result: pointer)
            if PQstatus(connection) != CONNECTION_OK { error.kind = .connection }
            throw error
        }
    }

    private func connectionError(_ connection: OpaquePointer) -> PostgresError {
        let text = String(cString: PQerrorMessage(connection))
        let kind: PostgresError.Kind = PQstatus(connection) == CONNECTION_OK ? .misuse : .connection
        return PostgresError(kind: kind, message: text.isEmpty ? "libpq returned no result" : text, libpqMessage: text)
    }
}

extension PostgresError {
    /// The fields of a failed result.
    init(result: OpaquePointer) {
        func field(_ code: Character) -> String? {
            guard let value = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: value)
        }
        let full = String(cString: PQresultErrorMessage(result))
        self.init(kind: .server, message: field("M") ?? full, sqlState: field("C"), libpqMessage: full)
        detail = field("D")
        hint = field("H")
        constraintName = field("n")
        tableName = field("t")
        columnName = field("c")
    }
}

/// A connection belongs to one thread at a time; hand it over through a `PostgresPool`.
@available(*, unavailable)
extension PostgresConnection: Sendable {}

/// Calls `body` with a NULL-terminated array of C strings that live for the call.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let duplicates = strings.map { strdup($0) }
    defer { duplicates.forEach { free($0) } }
    return body(duplicates.map { UnsafePointer($0) } + [nil])
}

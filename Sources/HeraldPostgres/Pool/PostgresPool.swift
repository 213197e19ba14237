import HeraldSync

/// A bounded pool of connections for threads that block on libpq.
///
/// Connections open lazily, up to `maxConnections`. A caller waits up to `acquireTimeout` for a
/// free one, then gets a `.poolExhausted` error. A connection that broke (the database restarted,
/// the backend was terminated) is discarded and replaced on the next use: while the database is
/// down calls fail at once with a connection error; once it is back they succeed again.
public final class PostgresPool: Sendable {
    /// The most connections open at once.
    public let maxConnections: Int
    /// How long a caller waits for a free connection.
    public let acquireTimeout: Duration
    private let url: String
    private let preparedStatements: Int
    private let state: ConditionLock<PoolState>

    private struct PoolState {
        var idle: [PostgresConnection] = []
        var open = 0
        var inUse = 0
        var waiting = 0
        var checkouts = 0
        var closed = false
    }

    private enum Lease {
        case idle(PostgresConnection)
        case openNew
    }

    /// A pool for `url` (a `postgresql://` URL or a conninfo string). No connection opens yet.
    /// `preparedStatements` bounds each connection's prepared statements (see `PostgresConnection`).
    public init(url: String, maxConnections: Int, acquireTimeout: Duration,
                preparedStatements: Int = PostgresConnection.defaultPreparedStatements) {
        precondition(maxConnections > 0, "a pool needs at least one connection")
        self.url = url
        self.preparedStatements = preparedStatements
        self.maxConnections = maxConnections
        self.acquireTimeout = acquireTimeout
        self.state = ConditionLock(PoolState())
    }

    /// Runs `body` with a connection of its own, then returns the connection to the pool.
    /// A transaction `body` left open is rolled back; a broken connection is discarded.
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try acquire()
        let value: T
        do {
            value = try body(connection)
        } catch {
            release(connection)
            throw error
        }
        release(connection)
        return value
    }

    /// Runs `body` in a transaction on a pooled connection (see `PostgresConnection.transaction`).
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { try $0.transaction(body) }
    }

    /// Counts for /metrics.
    public var statistics: PostgresPoolStatistics {
        state.withLock { state in
            PostgresPoolStatistics(
                open: state.open, inUse: state.inUse, idle: state.idle.count, waiting: state.waiting,
                maxConnections: maxConnections, checkouts: state.checkouts)
        }
    }

    /// Closes the idle connections and refuses new work; connections in use close when returned.
    public func close() {
        let idle = state.withLock { state in
            state.closed = true
            let idle = state.idle
            state.idle = []
            state.open -= idle.count
            return idle
        }
        idle.forEach { $0.close() }
        state.broadcast()
    }

    private func acquire() throws -> PostgresConnection {
        let deadline = monotonicDeadline(after: acquireTimeout)
        let lease = try state.wait(until: deadline, onWait: { state, waiting in state.waiting += waiting ? 1 : -1 }) {
            state -> Lease? in
            if state.closed { throw PostgresError(kind: .misuse, message: "the PostgreSQL pool is closed") }
            if let connection = state.idle.popLast() {
                state.inUse += 1
                state.checkouts += 1
                return .idle(connection)
            }
            guard state.open < maxConnections else { return nil }
            state.open += 1
            state.inUse += 1
            state.checkouts += 1
            return .openNew
        }
        switch lease {
        case nil:
            throw PostgresError(
                kind: .poolExhausted,
                message: "no PostgreSQL connection became free within \(acquireTimeout) (pool of \(maxConnections))")
        case .idle(let connection)?:
            if connection.isHealthy { return connection }
            // The server ended it while it was idle (a restart): replace it in the same slot.
            connection.close()
            return try openInReservedSlot()
        case .openNew?:
            return try openInReservedSlot()
        }
    }

    private func openInReservedSlot() throws -> PostgresConnection {
        do {
            return try PostgresConnection(url: url, preparedStatements: preparedStatements)
        } catch {
            state.withLock { state in
                state.open -= 1
                state.inUse -= 1
            }
            state.signal()
            throw error
        }
    }

    private func release(_ connection: PostgresConnection) {
        if connection.isUsable, connection.isInTransaction {
            _ = try? connection.executeScript("ROLLBACK")
        }
        let keep = connection.isUsable && !connection.isInTransaction
        let discard = state.withLock { state -> Bool in
            state.inUse -= 1
            if keep, !state.closed {
                state.idle.append(connection)
                return false
            }
            state.open -= 1
            return true
        }
        if discard { connection.close() }
        state.signal()
    }
}

/// A snapshot of a pool's counts.
public struct PostgresPoolStatistics: Sendable, Hashable {
    /// Connections open (idle and in use).
    public var open: Int
    /// Connections lent out.
    public var inUse: Int
    /// Connections open and free.
    public var idle: Int
    /// Callers waiting for a connection.
    public var waiting: Int
    /// The pool's bound.
    public var maxConnections: Int
    /// Connections lent out since the pool was made (each a round of work on the database).
    public var checkouts: Int
}

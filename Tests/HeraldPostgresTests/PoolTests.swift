import HeraldTestSupport
import Foundation
import Synchronization
import HeraldPostgres
import Testing

@Suite struct PoolTests {
    @Test func theCallerBeyondTheBoundWaitsThenTimesOut() throws {
        let pool = PostgresPool(url: try TestDatabase.url(), maxConnections: 2, acquireTimeout: .milliseconds(300))
        defer { pool.close() }
        try pool.withConnection { _ in
            try pool.withConnection { _ in
                #expect(pool.statistics.inUse == 2)
                let start = ContinuousClock.now
                let error = try #require(throws: PostgresError.self) {
                    try pool.withConnection { _ in }
                }
                let waited = ContinuousClock.now - start
                #expect(error.kind == .poolExhausted)
                #expect(waited >= .milliseconds(280) && waited < .seconds(3))
            }
        }
        let statistics = pool.statistics
        #expect(statistics.open == 2 && statistics.inUse == 0 && statistics.idle == 2 && statistics.waiting == 0)
    }

    @Test func aWaiterGetsTheConnectionWhenItIsReturned() throws {
        let pool = PostgresPool(url: try TestDatabase.url(), maxConnections: 1, acquireTimeout: .seconds(10))
        defer { pool.close() }
        let holding = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? pool.withConnection { _ in
                holding.signal()
                // The holder keeps the only connection a while on purpose: the waiter must wait for it.
                Thread.sleep(forTimeInterval: 0.3)
            }
        }
        holder.start()
        holding.wait()
        let start = ContinuousClock.now
        let backend = try pool.withConnection { connection in
            try connection.query("SELECT pg_backend_pid()")[0].decode(Int32.self, at: 0)
        }
        #expect(ContinuousClock.now - start >= .milliseconds(200))
        #expect(backend > 0)
        #expect(pool.statistics.open == 1)
    }

    @Test func manyThreadsShareABoundedPool() throws {
        let pool = PostgresPool(url: try TestDatabase.url(), maxConnections: 3, acquireTimeout: .seconds(20))
        defer { pool.close() }
        let sums = Mutex<[Int]>([])
        let done = DispatchGroup()
        for thread in 0..<8 {
            done.enter()
            Thread {
                defer { done.leave() }
                for round in 0..<10 {
                    let sum = try? pool.withConnection { connection in
                        try connection.query("SELECT \(thread)::int8 + \(round)::int8")[0].decode(Int.self, at: 0)
                    }
                    sums.withLock { $0.append(sum ?? -1) }
                }
            }.start()
        }
        done.wait()
        let all = sums.withLock { $0 }
        #expect(all.count == 80 && !all.contains(-1))
        let expected: Int = 10 * (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7) + 8 * 45
        #expect(all.reduce(0, +) == expected)
        #expect(pool.statistics.open <= 3)
    }

    @Test func aTransactionLeftOpenIsRolledBackOnReturn() throws {
        let schema = try TestSchema()
        defer { schema.drop() }
        let pool = PostgresPool(url: schema.url, maxConnections: 1, acquireTimeout: .seconds(5))
        defer { pool.close() }
        try pool.withConnection { try $0.executeScript("CREATE TABLE t (n int8)") }
        try pool.withConnection { connection in
            try connection.executeScript("BEGIN")
            try connection.execute("INSERT INTO t VALUES (\(1))")
        }
        let count = try pool.withConnection { try $0.query("SELECT count(*) FROM t")[0].decode(Int.self, at: 0) }
        #expect(count == 0)
    }

    @Test func aTerminatedConnectionIsReplaced() throws {
        let url = try TestDatabase.url()
        let pool = PostgresPool(url: url, maxConnections: 1, acquireTimeout: .seconds(5))
        defer { pool.close() }
        let admin = try PostgresConnection(url: url)
        let backendPID: (PostgresConnection) throws -> Int32 = {
            try $0.query("SELECT pg_backend_pid()")[0].decode(Int32.self, at: 0)
        }

        // Terminated while idle in the pool: the next caller gets a fresh connection, no error.
        let first = try pool.withConnection(backendPID)
        try terminate(first, using: admin)
        let second = try pool.withConnection(backendPID)
        #expect(second != first)

        // Terminated while in use: that call fails as a connection failure, the next succeeds.
        let error = try #require(throws: PostgresError.self) {
            try pool.withConnection { connection in
                try terminate(try backendPID(connection), using: admin)
                _ = try connection.query("SELECT 1")
            }
        }
        #expect(error.isConnectionFailure)
        let third = try pool.withConnection(backendPID)
        #expect(third != second)
        #expect(pool.statistics.open == 1)
    }

    /// Ends a backend and waits until it is gone.
    private func terminate(_ pid: Int32, using admin: PostgresConnection) throws {
        _ = try admin.query("SELECT pg_terminate_backend(\(pid))")
        // The backend leaves pg_stat_activity before its process exits and its socket closes;
        // on this machine, wait for the process itself (bounded, in case the server is remote).
        let deadline = ContinuousClock.now.advanced(by: waitingLimit)
        while ContinuousClock.now < deadline {
            let listed = try admin.query("SELECT count(*) FROM pg_stat_activity WHERE pid = \(pid)")[0].decode(Int.self, at: 0)
            if listed == 0, !FileManager.default.fileExists(atPath: "/proc/\(pid)") { return }
            // Another process's end can only be polled.
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}

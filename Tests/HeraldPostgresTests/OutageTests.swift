import HeraldTestSupport
import Foundation
import HeraldPostgres
import Testing

/// The database really stops and starts again (a throwaway cluster of this test's own).
@Suite struct OutageTests {
    @Test(.timeLimit(.minutes(5)))
    func poolAndListenerRecoverWhenTheDatabaseRestarts() throws {
        let cluster = try ThrowawayCluster()
        defer { cluster.destroy() }
        let pool = PostgresPool(url: cluster.url, maxConnections: 2, acquireTimeout: .seconds(2))
        defer { pool.close() }
        let listener = try PostgresListener(url: cluster.url)
        defer { listener.close() }
        try listener.listen("wake")
        let selectOne = { (connection: PostgresConnection) in
            try connection.query("SELECT 1")[0].decode(Int.self, at: 0)
        }
        #expect(try pool.withConnection(selectOne) == 1)

        try cluster.stop()
        // While it is down, every call fails promptly with a connection error; nothing hangs.
        for _ in 0..<3 {
            let start = ContinuousClock.now
            let error = try #require(throws: PostgresError.self) { try pool.withConnection(selectOne) }
            #expect(error.isConnectionFailure)
            #expect(ContinuousClock.now - start < .seconds(3))
        }
        let listenerError = try #require(throws: PostgresError.self) {
            try listener.waitForNotification(timeout: .milliseconds(300))
        }
        #expect(listenerError.isConnectionFailure)

        try cluster.start()
        // Back: the same pool and listener work again without being rebuilt.
        #expect(try pool.withConnection(selectOne) == 1)
        #expect(try listener.waitForNotification(timeout: .milliseconds(100)) == nil)
        try pool.withConnection { try $0.notify(channel: "wake", payload: "back") }
        #expect(try listener.waitForNotification(timeout: .seconds(5))?.payload == "back")
        #expect(pool.statistics.inUse == 0)
    }
}

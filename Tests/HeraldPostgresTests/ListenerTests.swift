import HeraldTestSupport
import Foundation
import HeraldPostgres
import Testing

@Suite struct ListenerTests {
    @Test func notificationsAreDeliveredWithTheirPayload() throws {
        let url = try TestDatabase.url()
        let channel = "herald test " + UUID().uuidString  // spaces and capitals: quoted, not folded
        let listener = try PostgresListener(url: url)
        defer { listener.close() }
        try listener.listen(channel)
        let sender = try PostgresConnection(url: url)
        try sender.notify(channel: channel, payload: "héllo; DROP TABLE x")
        try sender.notify(channel: "other-" + channel, payload: "not for us")
        try sender.notify(channel: channel, payload: "")

        let first = try #require(try listener.waitForNotification(timeout: .seconds(5)))
        #expect(first.channel == channel && first.payload == "héllo; DROP TABLE x")
        #expect(first.backendPID == sender.backendPID)
        let second = try #require(try listener.waitForNotification(timeout: .seconds(5)))
        #expect(second.payload == "")
        #expect(try listener.waitForNotification(timeout: .milliseconds(100)) == nil)
    }

    @Test func aWaitWithoutNotificationsEndsAtItsTimeout() throws {
        let listener = try PostgresListener(url: try TestDatabase.url())
        defer { listener.close() }
        try listener.listen("quiet-" + UUID().uuidString)
        let start = ContinuousClock.now
        #expect(try listener.waitForNotification(timeout: .milliseconds(200)) == nil)
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(190) && waited < .seconds(2))
    }

    @Test func aNotificationInATransactionArrivesAtCommit() throws {
        let url = try TestDatabase.url()
        let channel = "tx-" + UUID().uuidString
        let listener = try PostgresListener(url: url)
        defer { listener.close() }
        try listener.listen(channel)
        let sender = try PostgresConnection(url: url)
        try sender.transaction { connection in
            try connection.notify(channel: channel, payload: "due")
            #expect(try listener.waitForNotification(timeout: .milliseconds(100)) == nil)
        }
        #expect(try listener.waitForNotification(timeout: .seconds(5))?.payload == "due")
    }

    @Test func theListenerListensAgainAfterItsConnectionIsTerminated() throws {
        let url = try TestDatabase.url()
        let channel = "again-" + UUID().uuidString
        let listener = try PostgresListener(url: url)
        defer { listener.close() }
        try listener.listen(channel)
        let admin = try PostgresConnection(url: url)
        let pids = try admin.query("""
            SELECT pid FROM pg_stat_activity WHERE query = \("LISTEN \"" + channel + "\"")
            """).map { try $0.decode(Int32.self, at: 0) }
        #expect(pids.count == 1)
        for pid in pids { _ = try admin.query("SELECT pg_terminate_backend(\(pid))") }

        // The wait notices the broken connection, reconnects and listens again; it then sees
        // notifications sent after that.
        #expect(try listener.waitForNotification(timeout: .seconds(1)) == nil)
        #expect(listener.reconnections == 1)
        try admin.notify(channel: channel, payload: "after")
        #expect(try listener.waitForNotification(timeout: .seconds(5))?.payload == "after")
    }
}

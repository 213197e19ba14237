import HeraldSync
import CLibPQ
import Glibc

/// A notification sent with `NOTIFY` or `pg_notify`.
public struct PostgresNotification: Sendable, Hashable {
    /// The channel it was sent on.
    public var channel: String
    /// Its payload ("" when none).
    public var payload: String
    /// The server process of the session that sent it.
    public var backendPID: Int32
}

/// LISTEN on a dedicated connection, waiting for notifications with poll().
///
/// When the connection breaks (the database restarts), the listener reconnects and listens
/// again to every channel on its next wait. Notifications sent while it was disconnected are
/// lost, so a consumer should also poll for work now and then (and after `reconnections` grows).
/// Not `Sendable`: one thread waits on it.
public final class PostgresListener {
    private let url: String
    private var connection: PostgresConnection?
    /// The channels listened to, in order.
    public private(set) var channels: [String] = []
    /// How many times the listener has had to reconnect.
    public private(set) var reconnections = 0

    /// Opens the listener's connection (a `postgresql://` URL or a conninfo string).
    public init(url: String) throws {
        self.url = url
        self.connection = try PostgresConnection(url: url)
    }

    /// Starts listening on `channel` (any name: it is quoted as an identifier).
    public func listen(_ channel: String) throws {
        guard !channels.contains(channel) else { return }
        let connection = try connected()
        try connection.executeScript("LISTEN " + quoteIdentifier(channel, on: connection))
        channels.append(channel)
    }

    /// Stops listening on `channel`.
    public func unlisten(_ channel: String) throws {
        guard let position = channels.firstIndex(of: channel) else { return }
        let connection = try connected()
        try connection.executeScript("UNLISTEN " + quoteIdentifier(channel, on: connection))
        channels.remove(at: position)
    }

    /// The next notification, or nil when none arrives within `timeout`. While the database is
    /// unreachable it keeps trying to reconnect until `timeout`, then throws the connection error.
    public func waitForNotification(timeout: Duration) throws -> PostgresNotification? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let handle: OpaquePointer
            do {
                handle = try connected().openHandle()
            } catch {
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero else { throw error }
                sleep(for: min(remaining, .milliseconds(250)))
                continue
            }
            if let notification = nextNotification(handle) { return notification }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return nil }
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            // Rounded up, so a wait never ends just before its deadline and spins.
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0, errno != EINTR { dropConnection(); continue }
            if ready > 0, PQconsumeInput(handle) == 0 { dropConnection() }
        }
    }

    /// Closes the connection; the listener reconnects if used again.
    public func close() {
        connection?.close()
        connection = nil
    }

    /// The open connection, reconnecting (and listening again) when it broke.
    private func connected() throws -> PostgresConnection {
        if let connection, connection.isUsable { return connection }
        if connection != nil { dropConnection() }
        let fresh = try PostgresConnection(url: url)
        for channel in channels {
            try fresh.executeScript("LISTEN " + quoteIdentifier(channel, on: fresh))
        }
        connection = fresh
        reconnections += 1
        return fresh
    }

    private func dropConnection() {
        connection?.close()
        connection = nil
    }

    private func nextNotification(_ handle: OpaquePointer) -> PostgresNotification? {
        guard let notify = PQnotifies(handle) else { return nil }
        defer { PQfreemem(notify) }
        return PostgresNotification(
            channel: String(cString: notify.pointee.relname),
            payload: notify.pointee.extra.map { String(cString: $0) } ?? "",
            backendPID: notify.pointee.be_pid)
    }

    private func quoteIdentifier(_ name: String, on connection: PostgresConnection) throws -> String {
        let handle = try connection.openHandle()
        guard let quoted = PQescapeIdentifier(handle, name, name.utf8.count) else {
            throw PostgresError(kind: .misuse, message: "cannot quote the channel name: " + String(cString: PQerrorMessage(handle)))
        }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    private func sleep(for duration: Duration) {
        sleepThread(for: duration)
    }
}

/// A listener belongs to the one thread that waits on it.
@available(*, unavailable)
extension PostgresListener: Sendable {}

extension PostgresConnection {
    /// Sends a notification (`SELECT pg_notify($1, $2)`); inside a transaction it is delivered
    /// at COMMIT.
    public func notify(channel: String, payload: String = "") throws {
        _ = try query("SELECT pg_notify(\(channel), \(payload))")
    }
}

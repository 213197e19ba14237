import Foundation
import HeraldPostgres
import HeraldSync
import Synchronization

/// Which instance of the deployment runs the once-per-deployment chores: the one holding the
/// `chores` row of `leader_leases`. Every instance tries to take or renew it every third of a
/// lease; the holder leads until its lease runs out on its own clock, counted from before it
/// asked, so it stops leading no later than the database lets another take over.
final class Leadership: Sendable {
    static let leaseName = "chores"

    enum Mode: Sendable {
        /// Always the leader: an engine or a dispatcher run on its own (tests, one process).
        case alone
        /// Elected through the database.
        case elected(pool: PostgresPool, lease: Duration)
    }

    let mode: Mode
    let owner: String
    let log: Log
    /// The monotonic second until which this instance leads (nil: it does not).
    private let leadsUntil = Mutex<Double?>(nil)
    /// Rung when this instance becomes the leader: leader-only services take a step at once.
    let gained = Mutex<[Wakeup]>([])

    init(_ mode: Mode, owner: String, log: Log) {
        self.mode = mode
        self.owner = owner
        self.log = log
    }

    var isLeader: Bool {
        guard case .elected = mode else { return true }
        return leadsUntil.withLock { $0.map { monotonicSeconds() < $0 } ?? false }
    }

    /// The service that takes and renews the lease (none when alone).
    var service: BackgroundService? {
        guard case .elected(let pool, let lease) = mode else { return nil }
        return BackgroundService("leader-lease", .everyInstance, every: lease / 3, step: { [self] _ in
            let asked = monotonicSeconds()
            let wasLeader = isLeader
            let holds = try pool.withConnection { try LeaderLeaseStore().take(Self.leaseName, owner: owner, lease: lease, on: $0) }
            leadsUntil.withLock { $0 = holds ? asked + lease.seconds : nil }
            if holds && !wasLeader {
                log.info("leading the deployment's chores", ["owner": .string(owner), "lease_seconds": .number(lease.seconds)])
                for bell in gained.withLock({ $0 }) { bell.ring() }
            } else if !holds && wasLeader {
                log.warning("no longer the leader: another instance holds the lease", ["owner": .string(owner)])
            }
            return nil
        }, finish: { [self] _ in
            // A clean stop hands the lease over at once instead of after it runs out.
            guard leadsUntil.withLock({ $0 }) != nil else { return }
            leadsUntil.withLock { $0 = nil }
            do { try pool.withConnection { try LeaderLeaseStore().release(Self.leaseName, owner: owner, on: $0) } } catch {
                log.warning("releasing the leader lease: \(error)")  // it runs out instead
            }
        })
    }
}

/// The `leader_leases` table.
struct LeaderLeaseStore: Sendable {
    struct Holder: Sendable, Equatable {
        var owner: String
        var acquiredAt: Date
        var expiresAt: Date
        /// Seconds the lease has left on the database's clock (negative: run out).
        var secondsLeft: Double
    }

    /// Takes the lease if it is free or run out, or renews it if `owner` holds it, in one
    /// statement on the database's clock; whether `owner` holds it now.
    func take(_ name: String, owner: String, lease: Duration, on connection: PostgresConnection) throws -> Bool {
        let rows = try connection.query("""
            INSERT INTO leader_leases AS held (name, owner, acquired_at, expires_at)
            VALUES (\(name), \(owner), now(), now() + make_interval(secs => \(lease.seconds)))
            ON CONFLICT (name) DO UPDATE
               SET owner = EXCLUDED.owner,
                   acquired_at = CASE WHEN held.owner = EXCLUDED.owner THEN held.acquired_at ELSE now() END,
                   expires_at = EXCLUDED.expires_at
             WHERE held.owner = EXCLUDED.owner OR held.expires_at < now()
            RETURNING owner
            """)
        return !rows.isEmpty
    }

    func release(_ name: String, owner: String, on connection: PostgresConnection) throws {
        _ = try connection.execute("DELETE FROM leader_leases WHERE name = \(name) AND owner = \(owner)")
    }

    func holder(_ name: String, on connection: PostgresConnection) throws -> Holder? {
        try connection.query("""
            SELECT owner, acquired_at, expires_at, extract(epoch FROM expires_at - now())::float8 AS seconds_left
              FROM leader_leases WHERE name = \(name)
            """).map { row in
            let (owner, acquired, expires, left) = try row.decode((String, Date, Date, Double).self,
                                                                  columns: "owner", "acquired_at", "expires_at", "seconds_left")
            return Holder(owner: owner, acquiredAt: acquired, expiresAt: expires, secondsLeft: left)
        }.first
    }
}

import HeraldCore
import HeraldPostgres

/// The project's token bucket in PostgreSQL (`send_buckets`), one row per FCM project shared by
/// every instance. Each step locks the row, lets `TokenBucket` (HeraldCore) do the arithmetic on
/// the database's clock, and writes it back, in one short transaction.
struct SendQuotaStore: Sendable {
    /// How a project may send: its rate and how many tokens may gather while nobody sends.
    struct Limit: Sendable, Equatable {
        var project: String
        var ratePerSecond: Double
        var capacity: Int

        /// The row whose hold (after a 429 to a topic or condition request) every instance's
        /// fan-outs wait out; it grants no tokens.
        var fanOuts: Limit { Limit(project: project + "/fan-outs", ratePerSecond: ratePerSecond, capacity: capacity) }
    }

    /// What the bucket holds now, for the metrics.
    struct Snapshot: Sendable, Equatable {
        var tokens: Double
        /// Seconds every instance still waits after a 429 (0 when none).
        var holdSeconds: Double
    }

    func take(_ wanted: Int, atLeast minimum: Int = 1, limit: Limit, on connection: PostgresConnection) throws -> (TokenBucket.Grant, Snapshot) {
        try change(limit, on: connection) { bucket, now in
            let grant = bucket.take(wanted, atLeast: minimum, at: now)
            return (grant, grant.granted)
        }
    }

    func giveBack(_ count: Int, limit: Limit, on connection: PostgresConnection) throws {
        guard count > 0 else { return }
        _ = try change(limit, on: connection) { bucket, _ in
            bucket.giveBack(count)
            return ((), -count)
        }
    }

    /// Holds every instance's sending for `seconds` from now (FCM answered 429).
    func hold(for seconds: Double, limit: Limit, on connection: PostgresConnection) throws -> Snapshot {
        try change(limit, on: connection, slowdown: true) { bucket, now in
            bucket.hold(until: now + seconds)
            return ((), 0)
        }.1
    }

    /// Reads the bucket locked (made full the first time), applies `body`, writes it back; `body`
    /// returns its result and the change in tokens taken.
    func change<R>(_ limit: Limit, on connection: PostgresConnection, slowdown: Bool = false,
                   _ body: (inout TokenBucket, Double) -> (R, Int)) throws -> (R, Snapshot) {
        try connection.transaction { connection in
            // The row is ours until the commit; made full the first time (never deleted after).
            func locked() throws -> (Double, Double, Double, Double)? {
                try connection.query("""
                    SELECT tokens, extract(epoch FROM refilled_at)::float8 AS refilled_at, extract(epoch FROM not_before)::float8 AS not_before,
                           extract(epoch FROM clock_timestamp())::float8 AS now
                    FROM send_buckets WHERE project = \(limit.project) FOR UPDATE
                    """).map { try $0.decode((Double, Double, Double, Double).self, columns: "tokens", "refilled_at", "not_before", "now") }.first
            }
            var row = try locked()
            if row == nil {
                _ = try connection.execute("""
                    INSERT INTO send_buckets (project, tokens) VALUES (\(limit.project), \(Double(limit.capacity))) ON CONFLICT (project) DO NOTHING
                    """)
                row = try locked()
            }
            guard let (tokens, refilledAt, notBefore, now) = row else { throw PostgresError(kind: .misuse, message: "send_buckets has no row for \(limit.project)") }
            var bucket = TokenBucket(ratePerSecond: limit.ratePerSecond, capacity: Double(limit.capacity), tokens: tokens,
                                     refilledAt: refilledAt, notBefore: notBefore)
            let (result, taken) = body(&bucket, now)
            _ = try connection.execute("""
                UPDATE send_buckets SET tokens = \(bucket.tokens), refilled_at = to_timestamp(\(bucket.refilledAt)),
                    not_before = to_timestamp(\(bucket.notBefore)), taken = taken + \(taken),
                    slowdowns = slowdowns + \(slowdown ? 1 : 0)
                WHERE project = \(limit.project)
                """)
            return (result, Snapshot(tokens: bucket.tokens, holdSeconds: max(0, bucket.notBefore - now)))
        }
    }
}

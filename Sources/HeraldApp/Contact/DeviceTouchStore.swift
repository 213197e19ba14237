import FCMMessage
import Foundation
import HeraldCore
import HeraldPostgres

/// The marketing messages each device got lately (`touch_batches`, Migrations/0032), and the
/// frequency caps' check as workers claim messages: one read and one write per claimed batch.
struct DeviceTouchStore: Sendable {
    /// How the tokens of a claim lie in token order, which decides how their history is read.
    enum Layout: Sendable {
        /// A streamed run's batch: the devices of one range of tokens, whose history is the few
        /// rows of each recent run overlapping that range. Recorded as one row.
        case range
        /// Requests planned as rows, claimed in no token order: each device's history is read by
        /// its own token, and each admitted message is a row of its own.
        case scattered
    }

    /// One message a device got: when, its campaign's category, and whether the run asking sent it.
    struct Touch: Sendable {
        var at: Date
        var category: String?
        var byThisRun: Bool
    }

    /// The advisory lock claims hold while they count and record ("heraldFC").
    static let lockKey: Int64 = 0x6865_7261_6C64_4643

    /// Which of `tokens` a run may send a message of `category` now under `caps`, each counted
    /// as it is admitted. A device its run was already admitted for (a retry, a batch taken
    /// over after a crash) is admitted again without counting twice. Claims take turns on an
    /// advisory lock from the read to the commit, so two instances never both take a device's
    /// last message of a window; the rule read is `FrequencyCaps.allows`, the forecast's.
    func admit(_ tokens: [String], category: String?, run runID: RunID, caps: FrequencyCaps, layout: Layout,
               on connection: PostgresConnection) throws -> Set<String> {
        // Nothing to count against: no send is remembered.
        guard !tokens.isEmpty, let memory = caps.memorySeconds else { return Set(tokens) }
        func admit(_ connection: PostgresConnection) throws -> Set<String> {
            // Windows count back from the transaction's start, by the database's clock: one clock
            // for every instance.
            let now = try Self.now(connection.query("SELECT extract(epoch FROM now())::float8, pg_advisory_xact_lock(\(Self.lockKey))"))
            let histories = try self.histories(of: tokens, run: runID, layout: layout, memory: memory, on: connection)
            let (again, counted) = Self.decide(tokens, histories: histories, category: category, caps: caps, now: now)
            try record(counted, category: category, run: runID, layout: layout, on: connection)
            return again.union(counted)
        }
        return connection.isInTransaction ? try admit(connection) : try connection.transaction(admit)
    }

    /// Which of `tokens` the caps would let a message of `category` reach now, counting nothing:
    /// the review's forecast, by the same histories and the same decision as `admit`.
    func admissible(_ tokens: [String], category: String?, caps: FrequencyCaps, on connection: PostgresConnection) throws -> Set<String> {
        guard !tokens.isEmpty, let memory = caps.memorySeconds else { return Set(tokens) }
        let now = try Self.now(connection.query("SELECT extract(epoch FROM now())::float8"))
        let histories = try histories(of: tokens, layout: .scattered, memory: memory, on: connection)
        return Self.decide(tokens, histories: histories, category: category, caps: caps, now: now).counted.reduce(into: []) { $0.insert($1) }
    }

    /// The caps' decision for each of `tokens`: admitted again (its run had it already: a retry,
    /// a batch taken over), or newly counted under the caps; the rest are capped.
    private static func decide(_ tokens: [String], histories: [String: [Touch]], category: String?, caps: FrequencyCaps,
                               now: Date) -> (again: Set<String>, counted: [String]) {
        var again = Set<String>(), counted: [String] = []
        for token in tokens {
            let history = histories[token] ?? []
            if history.contains(where: \.byThisRun) {
                again.insert(token)
            } else if caps.allows(history.map { ($0.at, $0.category) }, category: category, now: now) {
                counted.append(token)
            }
        }
        return (again, counted)
    }

    /// The touches of `tokens` within `memory` seconds before the transaction's start (`now()`),
    /// marked when `runID` sent them.
    func histories(of tokens: [String], run runID: RunID? = nil, layout: Layout, memory: Int,
                   on connection: PostgresConnection) throws -> [String: [Touch]] {
        let rows: PostgresRows
        switch layout {
        case .range:
            // The rows overlapping the tokens' range, their keys matched to the tokens' at once.
            rows = try connection.query("""
                WITH x AS (SELECT t, i, hashtextextended(t, 0) AS k FROM unnest(\(tokens)::text[]) WITH ORDINALITY AS x(t, i))
                SELECT x.i, extract(epoch FROM b.at)::float8 AS at, b.category, coalesce(b.run = \(runID)::uuid, false) AS own_run
                FROM touch_batches b CROSS JOIN LATERAL unnest(b.keys) AS u(key) JOIN x ON x.k = u.key
                WHERE b.tokens && token_range((SELECT min(t) FROM x), (SELECT max(t) FROM x), '[]')
                  AND b.at > now() - make_interval(secs => \(memory))
                """)
        case .scattered:
            rows = try connection.query("""
                SELECT x.i, extract(epoch FROM b.at)::float8 AS at, b.category, coalesce(b.run = \(runID)::uuid, false) AS own_run
                FROM unnest(\(tokens)::text[]) WITH ORDINALITY AS x(t, i)
                JOIN touch_batches b ON b.tokens @> x.t AND hashtextextended(x.t, 0) = ANY(b.keys)
                WHERE b.at > now() - make_interval(secs => \(memory))
                """)
        }
        // Checked once, then read by position: a row per device and earlier message.
        try rows.requireColumns(["i", "at", "category", "own_run"])
        var touches: [String: [Touch]] = [:]
        for row in rows {
            let (index, at, category, ownRun) = try row.decode((Int, Double, String?, Bool).self)
            touches[tokens[index - 1], default: []].append(Touch(at: Date(timeIntervalSince1970: at), category: category, byThisRun: ownRun))
        }
        return touches
    }

    /// A message of `run` to each of `tokens`, sent now: one row for a range, one row each when scattered.
    private func record(_ tokens: [String], category: String?, run runID: RunID, layout: Layout,
                        on connection: PostgresConnection) throws {
        guard !tokens.isEmpty else { return }
        switch layout {
        case .range:
            _ = try connection.execute("""
                INSERT INTO touch_batches (run, category, tokens, keys)
                SELECT \(runID)::uuid, \(category)::text, token_range(min(t), max(t), '[]'), array_agg(hashtextextended(t, 0))
                FROM unnest(\(tokens)::text[]) AS t
                """)
        case .scattered:
            _ = try connection.execute("""
                INSERT INTO touch_batches (run, category, tokens, keys)
                SELECT \(runID)::uuid, \(category)::text, token_range(t, t, '[]'), ARRAY[hashtextextended(t, 0)]
                FROM unnest(\(tokens)::text[]) AS t
                """)
        }
    }

    /// `claimed`, the requests of one run to devices, with those `caps` stop marked `capped`
    /// (recorded so, never sent). A transactional campaign's are never capped nor counted.
    func applyCaps(_ caps: FrequencyCaps, to claimed: [DeliveryStore.Claimed], tokens: [String], spec: CampaignSpec, runID: RunID,
                   layout: Layout, on connection: PostgresConnection) throws -> [DeliveryStore.Claimed] {
        guard !spec.delivery.transactional, !claimed.isEmpty, !caps.isEmpty else { return claimed }
        let sendable = zip(claimed, tokens).filter { $0.0.failure == nil }.map(\.1)
        let admitted = try admit(sendable, category: spec.delivery.category, run: runID, caps: caps, layout: layout, on: connection)
        return zip(claimed, tokens).map { request, token in
            var request = request
            if request.failure == nil, !admitted.contains(token) { request.capped = true }
            return request
        }
    }

    /// The messages `token` got go with it to `fid` (unless the FID has some of its own), and are
    /// forgotten under the token.
    func move(_ token: String, to fid: String, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            INSERT INTO touch_batches (run, at, category, tokens, keys)
            SELECT run, at, category, token_range(\(fid)::text, \(fid)::text, '[]'), ARRAY[hashtextextended(\(fid), 0)]
            FROM touch_batches WHERE tokens @> \(token)::text AND hashtextextended(\(token), 0) = ANY(keys)
              AND NOT EXISTS (SELECT 1 FROM touch_batches WHERE tokens @> \(fid)::text AND hashtextextended(\(fid), 0) = ANY(keys))
            """)
        try forget(token, on: connection)
    }

    /// Forgets the messages `token` got (a deleted device).
    func forget(_ token: String, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            UPDATE touch_batches SET keys = array_remove(keys, hashtextextended(\(token), 0))
            WHERE tokens @> \(token)::text AND hashtextextended(\(token), 0) = ANY(keys)
            """)
    }

    /// Forgets `token` for good (an erased device): its messages, and the ranges it bounds. A
    /// range's first device becomes `before`, its last `after` (none: unbounded), the devices just
    /// beside it now: wider by nothing but the gone device, so no message is missed; an empty
    /// range goes.
    func erase(_ token: String, before: String?, after: String?, on connection: PostgresConnection) throws {
        try forget(token, on: connection)
        _ = try connection.execute("DELETE FROM touch_batches WHERE tokens @> \(token)::text AND keys = '{}'")
        _ = try connection.execute("""
            UPDATE touch_batches
            SET tokens = token_range(CASE WHEN lower(tokens) = \(token) THEN \(before)::text ELSE lower(tokens) END,
                                     CASE WHEN upper(tokens) = \(token) THEN \(after)::text ELSE upper(tokens) END,
                                     CASE WHEN lower_inc(tokens) THEN '[' ELSE '(' END || CASE WHEN upper_inc(tokens) THEN ']' ELSE ')' END)
            WHERE tokens @> \(token)::text AND (lower(tokens) = \(token) OR upper(tokens) = \(token))
            """)
    }

    private static func now(_ rows: PostgresRows) throws -> Date {
        Date(timeIntervalSince1970: try rows.first?.decode(Double.self, at: 0) ?? Date().timeIntervalSince1970)
    }

    /// Forgets the messages older than every window (`memorySeconds`), and all of them without caps.
    func dropOld(memorySeconds: Int?, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            DELETE FROM touch_batches
            WHERE \(memorySeconds)::integer IS NULL OR at < now() - make_interval(secs => \(memorySeconds)::integer)
            """)
    }
}

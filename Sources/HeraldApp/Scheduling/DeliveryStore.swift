import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// The SQL of the outbox: starting due runs, claiming deliveries under a lease, recording what FCM
/// answered, and closing runs and campaigns when everything is final.
struct DeliveryStore: Sendable {
    /// A run the scheduler started.
    struct StartedRun: Sendable, Equatable {
        var campaignID: String
        var runID: String
        var deliveries: Int
    }

    /// A delivery a worker holds the lease of.
    struct Claimed: Sendable {
        var id: Int64
        var runID: String
        var body: [UInt8]
        var attempts: Int
        /// Seconds since the run was due.
        var lateness: Double
    }

    /// What to write back for one delivery.
    struct Outcome: Sendable {
        enum Status: String, Sendable { case sent, retrying, failed }
        var id: Int64
        var status: Status
        var messageName: String?
        var errorCode: String?
        var errorMessage: String?
        var retryDelay: Duration?
    }

    static let scheduleChannel = "herald_schedule"
    static let deliveryChannel = "herald_deliveries"

    /// Starts the runs of campaigns that are due, in one transaction each batch: plans every
    /// request, writes them as deliveries, and moves each campaign on (to its next occurrence, or
    /// to `sending`). Locked rows are skipped, so several schedulers never start the same run, and
    /// an occurrence that already has a run gets no second one. The writes are one statement each
    /// for the whole batch (round trips, not planning, were what limited the scheduler).
    func startDueRuns(limit: Int, buckets: AudienceBuckets, now: Date, on connection: PostgresConnection) throws -> [StartedRun] {
        try connection.transaction { connection in
            let due = try connection.query("""
                SELECT id::text, content::text, next_run_at, next_run_at::text AS occurrence FROM campaigns
                WHERE status = 'scheduled' AND next_run_at <= now()
                ORDER BY campaigns.next_run_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """)
            var ids: [String] = [], occurrences: [String] = [], nexts: [String] = [], broken: [String] = []
            var plans: [String: FanOutPlan] = [:]
            for row in due {
                let id = try row.decode(String.self, at: 0)
                let occurrence = try row.decode(Date.self, at: 2)
                // Content the parser no longer accepts would fail this whole batch on every pass
                // and hold up every other due campaign; that campaign fails alone instead.
                guard let json = try? JSON.parse(try row.decode(String.self, at: 1)), case .success(let spec) = CampaignSpec.parse(json) else {
                    broken.append(id)
                    continue
                }
                plans[id] = FanOutPlanner.plan(campaign: spec, buckets: buckets, campaignID: id, sendTime: occurrence)
                ids.append(id)
                occurrences.append(try row.decode(String.self, at: 3))  // exact, for the uniqueness of (campaign, occurrence)
                nexts.append(Arming.nextRun(of: spec, after: occurrence, now: now).map { String(format: "%.6f", $0.timeIntervalSince1970) } ?? "")
            }
            if !broken.isEmpty {
                _ = try connection.execute("""
                    UPDATE campaigns SET status = 'failed', next_run_at = NULL, version = version + 1, updated_at = now()
                    WHERE id = ANY(\(broken)::uuid[])
                    """)
            }
            guard !ids.isEmpty else { return [] }

            let created = try connection.query("""
                INSERT INTO runs (campaign_id, occurrence, planned, warnings)
                SELECT c::uuid, o::timestamptz, p::integer, w::jsonb
                FROM unnest(\(ids), \(occurrences), \(ids.map { String(plans[$0]!.requests.count) }),
                            \(ids.map { JSON.array(plans[$0]!.warnings.map { .string($0) }).serializedString() })) AS x(c, o, p, w)
                ON CONFLICT (campaign_id, occurrence) DO NOTHING RETURNING campaign_id::text, id::text
                """).map { (campaign: try $0.decode(String.self, at: 0), run: try $0.decode(String.self, at: 1)) }
            var runIDs: [String] = [], campaignIDs: [String] = [], variants: [String] = [], targets: [String] = [], bodies: [String] = []
            var started: [StartedRun] = []
            for (campaign, run) in created {
                let requests = plans[campaign]!.requests
                for request in requests {
                    runIDs.append(run)
                    campaignIDs.append(campaign)
                    variants.append(request.variantKey)
                    targets.append(request.target.json.serializedString())
                    bodies.append(request.message.json().serializedString())
                }
                started.append(StartedRun(campaignID: campaign, runID: run, deliveries: requests.count))
            }
            if !runIDs.isEmpty {
                _ = try connection.execute("""
                    INSERT INTO deliveries (run_id, campaign_id, variant_key, target, body)
                    SELECT r::uuid, c::uuid, v, t::jsonb, b FROM unnest(\(runIDs), \(campaignIDs), \(variants), \(targets), \(bodies)) AS x(r, c, v, t, b)
                    """)
            }
            // On to the next occurrence, or (no more) to sending; an occurrence already run moves on too.
            _ = try connection.execute("""
                UPDATE campaigns c SET next_run_at = to_timestamp(nullif(x.n, '')::float8), updated_at = now(),
                    status = CASE WHEN x.n = '' THEN 'sending' ELSE c.status END,
                    version = CASE WHEN x.n = '' THEN c.version + 1 ELSE c.version END
                FROM unnest(\(ids), \(nexts)) AS x(id, n) WHERE c.id = x.id::uuid
                """)
            if !started.isEmpty {
                _ = try connection.query("SELECT pg_notify(\(Self.deliveryChannel), '')")
                // A plan with no request is finished as soon as it starts.
                try closeRuns(started.filter { $0.deliveries == 0 }.map(\.runID), on: connection)
            }
            return started
        }
    }

    /// Seconds until the next campaign is due (negative when overdue), or nil when none is scheduled.
    func secondsUntilNextDue(on connection: PostgresConnection) throws -> Double? {
        try connection.query("""
            SELECT extract(epoch FROM min(next_run_at) - now())::float8 FROM campaigns WHERE status = 'scheduled'
            """).map { try $0.decode(Double?.self, at: 0) }.first ?? nil
    }

    /// Takes the lease of up to `limit` deliveries that are ready: never tried, due for a retry, or
    /// held by a worker whose lease expired (it crashed). Each claim counts as an attempt.
    func claim(owner: String, limit: Int, lease: Duration, on connection: PostgresConnection) throws -> [Claimed] {
        let seconds = Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
        return try connection.query("""
            UPDATE deliveries d SET lease_owner = \(owner), lease_expires_at = now() + make_interval(secs => \(seconds)),
                attempts = d.attempts + 1, updated_at = now()
            FROM runs r
            WHERE r.id = d.run_id AND d.id IN (
                SELECT id FROM deliveries
                WHERE status IN ('pending', 'retrying') AND next_attempt_at <= now()
                  AND (lease_expires_at IS NULL OR lease_expires_at < now())
                ORDER BY next_attempt_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING d.id, d.run_id::text, d.body, d.attempts, extract(epoch FROM now() - r.occurrence)::float8
            """).map { row in
            Claimed(id: try row.decode(Int64.self, at: 0), runID: try row.decode(String.self, at: 1),
                    body: Array(try row.decode(String.self, at: 2).utf8), attempts: try row.decode(Int.self, at: 3),
                    lateness: try row.decode(Double.self, at: 4))
        }
    }

    /// Seconds until a delivery may next be claimed, or nil when none is waiting.
    func secondsUntilNextDelivery(on connection: PostgresConnection) throws -> Double? {
        try connection.query("""
            SELECT extract(epoch FROM min(greatest(next_attempt_at, coalesce(lease_expires_at, next_attempt_at))) - now())::float8
            FROM deliveries WHERE status IN ('pending', 'retrying')
            """).map { try $0.decode(Double?.self, at: 0) }.first ?? nil
    }

    /// Writes the outcomes of deliveries `owner` still holds (a lease taken over by another worker
    /// after expiry is theirs to record), then closes the runs that are finished.
    func record(_ outcomes: [Outcome], owner: String, runIDs: Set<String>, on connection: PostgresConnection) throws {
        guard !outcomes.isEmpty else { return }
        try connection.transaction { connection in
            _ = try connection.execute("""
                UPDATE deliveries d SET status = x.status, message_name = nullif(x.name, ''),
                    error_code = nullif(x.code, ''), error_message = nullif(x.message, ''),
                    next_attempt_at = CASE WHEN x.delay = '' THEN d.next_attempt_at
                                           ELSE now() + make_interval(secs => x.delay::float8) END,
                    sent_at = CASE WHEN x.status = 'sent' THEN now() ELSE d.sent_at END,
                    sent_by = CASE WHEN x.status IN ('sent', 'failed') THEN \(owner) ELSE d.sent_by END,
                    lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
                FROM unnest(\(outcomes.map { String($0.id) }), \(outcomes.map(\.status.rawValue)), \(outcomes.map { $0.messageName ?? "" }),
                            \(outcomes.map { $0.errorCode ?? "" }), \(outcomes.map { $0.errorMessage ?? "" }),
                            \(outcomes.map { $0.retryDelay.map { String(Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18) } ?? "" }))
                     AS x(id, status, name, code, message, delay)
                WHERE d.id = x.id::bigint AND d.lease_owner = \(owner)
                  -- A request that was in flight when the campaign was cancelled still reached FCM.
                  AND (d.status IN ('pending', 'retrying') OR (d.status = 'cancelled' AND x.status = 'sent'))
                """)
        }
        try connection.transaction { connection in try closeRuns(Array(runIDs), on: connection) }
    }

    /// Closes every open run whose deliveries are all final, whoever recorded them.
    func closeFinishedRuns(on connection: PostgresConnection) throws {
        // An index probe per open run (deliveries_run), not a count of a large run's deliveries.
        let finished = try connection.query("""
            SELECT r.id::text FROM runs r WHERE r.status = 'sending' AND NOT EXISTS (
                SELECT 1 FROM deliveries d WHERE d.run_id = r.id AND d.status IN ('pending', 'retrying'))
            """).map { try $0.decode(String.self, at: 0) }
        try connection.transaction { connection in try closeRuns(finished, on: connection) }
    }

    /// Closes each of these runs whose deliveries are all final, and then its campaign when no run
    /// of a campaign that is `sending` remains open. The status guards make racing closers harmless.
    func closeRuns(_ runIDs: [String], on connection: PostgresConnection) throws {
        guard !runIDs.isEmpty else { return }
        let closed = try connection.query("""
            WITH counts AS (
                SELECT r.id,
                       count(d.id) FILTER (WHERE d.status = 'sent') AS sent,
                       count(d.id) FILTER (WHERE d.status = 'failed') AS failed,
                       count(d.id) FILTER (WHERE d.status IN ('pending', 'retrying')) AS open
                FROM runs r LEFT JOIN deliveries d ON d.run_id = r.id
                WHERE r.id = ANY(\(runIDs)::uuid[]) AND r.status = 'sending'
                GROUP BY r.id)
            UPDATE runs r SET finished_at = now(),
                status = CASE WHEN c.failed = 0 THEN 'sent' WHEN c.sent = 0 THEN 'failed' ELSE 'partially_failed' END
            FROM counts c
            WHERE r.id = c.id AND c.open = 0 AND r.status = 'sending'
            RETURNING r.campaign_id::text, r.status
            """)
        let campaigns = try closed.map { (id: try $0.decode(String.self, at: 0), status: try $0.decode(String.self, at: 1)) }
        guard !campaigns.isEmpty else { return }
        _ = try connection.execute("""
            UPDATE campaigns c SET status = x.status, version = version + 1, updated_at = now()
            FROM unnest(\(campaigns.map(\.id)), \(campaigns.map(\.status))) AS x(id, status)
            WHERE c.id = x.id::uuid AND c.status = 'sending'
              AND NOT EXISTS (SELECT 1 FROM runs WHERE campaign_id = c.id AND status = 'sending')
            """)
    }
}

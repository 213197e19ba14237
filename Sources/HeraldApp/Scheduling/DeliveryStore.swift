import HeraldSync
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// The SQL of the outbox: starting due runs, claiming deliveries under a lease, recording what FCM
/// answered, and closing runs and campaigns when everything is final.
struct DeliveryStore: Sendable {
    /// A run the scheduler started.
    struct StartedRun: Sendable, Equatable {
        var campaignID: CampaignID
        var runID: RunID
        var deliveries: Int
    }

    /// A delivery a worker holds the lease of.
    struct Claimed: Sendable {
        /// The delivery's id; a streamed run's batch's.
        var id: Int64
        var runID: RunID
        var body: [UInt8]
        var attempts: Int
        /// Seconds since the run was due.
        var lateness: Double
        /// The device of a streamed run's request (which has no delivery row).
        var device: StreamedDevice? = nil
        /// Why the request cannot be sent (a personalised message over FCM's limit): recorded as failed, never sent.
        var failure: String? = nil
        /// A frequency cap stopped it: recorded as capped, never sent.
        var capped = false
        /// A topic or condition request (FCM fans it out): a 429 to it holds fan-outs, not devices.
        var fanOut = false
    }

    /// What to write back for one delivery.
    struct Outcome: Sendable {
        var id: Int64
        /// `.sent`, `.retrying` or `.failed`.
        var status: DeliveryStatus
        var messageName: String?
        var errorCode: String?
        var errorMessage: String?
        var retryDelay: Duration?
        /// The device of a streamed run's request.
        var device: StreamedDevice? = nil
    }

    static let scheduleChannel = "herald_schedule"
    /// The advisory lock that serializes claiming topic fan-outs when their number is limited.
    static let fanOutLock: Int64 = 0x6865_7261_6C64_4630  // "heraldF0"
    static let deliveryChannel = "herald_deliveries"

    /// A campaign whose run is due, locked for this transaction.
    struct Due: Sendable {
        var campaignID: CampaignID
        /// The content the run sends: with approvals on, the version a publisher approved.
        var content: JSON
        var version: Int
        var occurrence: Date
        /// The occurrence exactly as stored, for the uniqueness of (campaign, occurrence).
        var occurrenceText: String
    }

    /// A run planned in Swift (`RunStarter`), to be written with its deliveries.
    struct PlannedRun: Sendable {
        var campaignID: CampaignID
        var occurrenceText: String
        var version: Int
        var plan: FanOutPlan
        /// When the campaign runs next; nil moves it to `sending`.
        var nextRun: Date?
        /// Nothing of the run is sent after this (the latest-delivery time).
        var expiresAt: Date? = nil
        /// The stretch of sending hours the run may send in now or next.
        var window: SendingWindow.Interval? = nil
        /// Seconds between the run's requests (a campaign's spread).
        var spacing: Double? = nil
        /// At recipient time, each request's wave (by index): when it falls due and expires, or that it was missed.
        var slots: [RecipientWaves.Slot]? = nil
        /// The variant a winner's roll-out sends.
        var rolloutVariant: String? = nil
    }

    /// Up to `limit` scheduled campaigns that are due, locked; rows other schedulers hold are
    /// skipped, so several instances never start the same run. With `approvalsRequired`, a
    /// campaign whose current version is not the one approved is held: none of its runs starts
    /// until a publisher approves it (each run of a recurring campaign checks again).
    func lockDue(limit: Int, approvalsRequired: Bool, on connection: PostgresConnection) throws -> [Due] {
        try connection.query("""
            SELECT id, content::text, version, next_run_at, next_run_at::text AS occurrence_text FROM campaigns
            WHERE next_run_at <= now() AND status = \(constants: [CampaignStatus.scheduled])
              -- Held: with approvals on, a version nobody approved (an edit after approval) waits.
              AND (NOT \(approvalsRequired) OR (approval = \(ApprovalState.approved) AND approved_version = version))
            ORDER BY campaigns.next_run_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """).map { row in
            let (id, content, version, occurrence, text) = try row.decode((CampaignID, String, Int, Date, String).self, columns: "id", "content", "version", "next_run_at", "occurrence_text")
            return Due(campaignID: id, content: try JSON.parse(content), version: version, occurrence: occurrence, occurrenceText: text)
        }
    }

    /// Ends campaigns whose content cannot be planned any more: each gets a failed run that says
    /// why (the report and the runs API show it) and the campaign fails alone, instead of failing
    /// the whole batch on every pass and holding up every other due campaign.
    func failUnplannable(_ campaigns: [(due: Due, reason: String)], on connection: PostgresConnection) throws {
        guard !campaigns.isEmpty else { return }
        try RunWriter().insertFailed(campaigns, on: connection)
        _ = try connection.execute("""
            UPDATE campaigns SET status = \(constants: [CampaignStatus.failed]), next_run_at = NULL
            WHERE id = ANY(\(campaigns.map(\.due.campaignID))::uuid[])
            """)
        try WebhookOutbox.enqueueCampaignEvents(campaigns.map { (.campaignFailed, $0.due.campaignID, ["reason": .string($0.reason)]) },
                                                on: connection)
    }

    /// Moves each campaign on to its next occurrence, or (no more) to `sending` (an occurrence
    /// already run moves on too), wakes the workers, and closes the started runs that have nothing to send.
    func advance(_ campaigns: [(campaignID: CampaignID, nextRun: Date?)], started: [StartedRun], on connection: PostgresConnection) throws {
        guard !campaigns.isEmpty else { return }
        _ = try connection.execute("""
            UPDATE campaigns c SET next_run_at = to_timestamp(nullif(x.n, '')::float8),
                status = CASE WHEN x.n = '' THEN \(CampaignStatus.sending) ELSE c.status END
            FROM unnest(\(campaigns.map(\.campaignID)), \(campaigns.map { $0.nextRun.map { String(format: "%.6f", $0.timeIntervalSince1970) } ?? "" }))
                 AS x(id, n) WHERE c.id = x.id::uuid
            """)
        if !started.isEmpty {
            _ = try connection.query("SELECT pg_notify(\(Self.deliveryChannel), '')")
            try WebhookOutbox.enqueueCampaignEvents(started.map { run in
                (.campaignStarted, run.campaignID, ["run": ["id": .string(run.runID.description),
                                                            "requests": run.deliveries < 0 ? .null : .number(Double(run.deliveries))]])
            }, on: connection)
            // A plan with no request is finished as soon as it starts.
            try closeRuns(started.filter { $0.deliveries == 0 }.map(\.runID), on: connection)
        }
    }

    /// Seconds until the next campaign is due (negative when overdue), or nil when none is scheduled.
    func secondsUntilNextDue(approvalsRequired: Bool, on connection: PostgresConnection) throws -> Double? {
        try connection.query("""
            SELECT extract(epoch FROM min(next_run_at) - now())::float8 FROM campaigns
            WHERE status = \(constants: [CampaignStatus.scheduled])
              -- Held: with approvals on, a version nobody approved (an edit after approval) waits.
              AND (NOT \(approvalsRequired) OR (approval = \(ApprovalState.approved) AND approved_version = version))
            """).map { try $0.decode(Double?.self, at: 0) }.first ?? nil
    }

    /// Takes the lease of up to `limit` deliveries that are ready: never tried, due for a retry, or
    /// held by a worker whose lease expired (it crashed). Each claim counts as an attempt.
    ///
    /// Extends the leases `owner` still holds on these deliveries: a round that runs long (a slow
    /// token endpoint, slow answers) keeps them, so no other worker sends them again meanwhile.
    func renew(_ ids: [Int64], owner: String, lease: Duration, on connection: PostgresConnection) throws {
        guard !ids.isEmpty else { return }
        try StreamedRunStore().renew(ids, owner: owner, lease: lease, on: connection)
        _ = try connection.execute("""
            UPDATE deliveries SET lease_expires_at = now() + make_interval(secs => \(lease.seconds))
            WHERE id = ANY(\(ids.map(String.init))::bigint[]) AND lease_owner = \(owner) AND status IN (\(constants: DeliveryStatus.open))
            """)
    }

    /// Seconds until a delivery may next be claimed, or nil when none is waiting.
    func secondsUntilNextDelivery(on connection: PostgresConnection) throws -> Double? {
        let streamed = try StreamedRunStore().secondsUntilNextBatch(on: connection)
        if let streamed, streamed <= 0 { return streamed }
        // A run with a delivery in flight waits for it (its holder claims the next one itself when it
        // records the answer), or for that lease to expire if its holder died.
        let rows = try connection.query("""
            SELECT extract(epoch FROM min(greatest(d.next_attempt_at, coalesce(d.lease_expires_at, d.next_attempt_at),
                                                   coalesce(r.window_opens_at, d.next_attempt_at))) - now())::float8
            FROM runs r JOIN deliveries d ON d.run_id = r.id
            -- Only runs still sending have requests waiting: the few of them first, then their requests.
            WHERE r.status = \(constants: [RunStatus.sending]) AND d.status IN (\(constants: DeliveryStatus.open))
              -- An expired run or a closed window waits for the scheduler, not for a worker.
              AND (r.expires_at IS NULL OR r.expires_at > now()) AND (r.window_closes_at IS NULL OR r.window_closes_at > now())
              AND \(fragment: SendRules.campaignOfRunNotPaused)
              AND (d.device_token IS NOT NULL
                   OR NOT EXISTS (SELECT 1 FROM deliveries l WHERE l.run_id = d.run_id AND l.id <> d.id
                                  AND l.status IN (\(constants: DeliveryStatus.open)) AND l.lease_expires_at >= now()))
            """).map { try $0.decode(Double?.self, at: 0) }.first ?? nil
        return [rows, streamed].compactMap { $0 }.min()
    }

    /// Closes every open run whose deliveries are all final, whoever recorded them.
    func closeFinishedRuns(on connection: PostgresConnection) throws {
        // An index probe per open run (deliveries_run), not a count of a large run's deliveries.
        let finished = try connection.query("""
            SELECT r.id FROM runs r WHERE r.status = \(constants: [RunStatus.sending]) AND NOT r.planning AND NOT EXISTS (
                SELECT 1 FROM deliveries d WHERE d.run_id = r.id AND d.status IN (\(constants: DeliveryStatus.open)))
              AND NOT EXISTS (SELECT 1 FROM device_batches b WHERE b.run_id = r.id AND b.status = \(constants: [DeliveryStatus.pending]))
            """).map { try $0.decode(RunID.self, at: 0) }
        try connection.transaction { connection in try closeRuns(finished, on: connection) }
    }

    /// Closes each of these runs whose deliveries are all final, and then its campaign when no run
    /// of a campaign that is `sending` (or paused while sending: its last round finished it) remains open. What a run and its campaign become is
    /// `RunStatus.closed` (HeraldCore); the status guards make racing closers harmless.
    func closeRuns(_ runIDs: [RunID], on connection: PostgresConnection) throws {
        guard !runIDs.isEmpty else { return }
        // An index probe per run first (deliveries_run): a large run still sending is passed over
        // without counting its deliveries, which every worker round would otherwise do. The probe
        // is materialized so that it runs first: left to the planner, with fresh statistics it
        // joined a run's 100,000 deliveries and then probed once per delivery (seconds a round).
        let finished = try connection.query("""
            WITH done AS MATERIALIZED (
                SELECT r.id FROM runs r
                WHERE r.id = ANY(\(runIDs)::uuid[]) AND r.status = \(constants: [RunStatus.sending]) AND NOT r.planning
                  AND NOT EXISTS (SELECT 1 FROM deliveries o WHERE o.run_id = r.id AND o.status IN (\(constants: DeliveryStatus.open)))
                  AND NOT EXISTS (SELECT 1 FROM device_batches b WHERE b.run_id = r.id AND b.status = \(constants: [DeliveryStatus.pending]))
            )
            SELECT done.id,
                   (SELECT count(*) FROM deliveries d WHERE d.run_id = done.id AND d.status = \(constants: [DeliveryStatus.sent]))
                   + (SELECT coalesce(sum(n), 0) FROM run_counts c WHERE c.run_id = done.id AND c.outcome = \(DeliveryStatus.sent))::bigint AS sent,
                   -- An expired request was not delivered: it counts as failed for the run's outcome.
                   (SELECT count(*) FROM deliveries d WHERE d.run_id = done.id AND d.status IN (\(constants: [DeliveryStatus.failed, .expired])))
                   + (SELECT coalesce(sum(n), 0) FROM run_counts c WHERE c.run_id = done.id
                        AND c.outcome IN (\(constants: [DeliveryStatus.failed, .expired])))::bigint AS failed
            FROM done
            """).map { try $0.decode((RunID, Int, Int).self, columns: "id", "sent", "failed") }
        // A streamed run is folded when it closes: its planned count is its counters', written once,
        // and its batches (done) are dropped; its counts and failed devices are what it keeps.
        _ = try connection.execute("""
            UPDATE runs r SET planned = (SELECT coalesce(sum(n), 0) FROM run_counts c WHERE c.run_id = r.id AND c.outcome = \(RunCounts.planned))
            WHERE r.id = ANY(\(finished.map(\.0))::uuid[]) AND r.kind = \(constants: [RunKind.devicesStreamed])
            """)
        _ = try connection.execute("DELETE FROM device_batches WHERE run_id = ANY(\(finished.map(\.0))::uuid[])")
        guard !finished.isEmpty else { return }
        _ = try connection.execute("DELETE FROM run_skips WHERE run_id = ANY(\(finished.map(\.0))::uuid[])")
        let closed = try connection.query("""
            UPDATE runs r SET finished_at = now(), status = x.status
            FROM unnest(\(finished.map(\.0)), \(finished.map { RunStatus.closed(sent: $0.1, failed: $0.2) })) AS x(id, status)
            WHERE r.id = x.id::uuid AND r.status = \(constants: [RunStatus.sending])
            RETURNING r.campaign_id, r.status, r.id
            """).map { try $0.decode((CampaignID, String, RunID).self, columns: "campaign_id", "status", "id") }
        guard !closed.isEmpty else { return }
        let ended = try connection.query("""
            UPDATE campaigns c SET status = x.status
            FROM unnest(\(closed.map(\.0)), \(closed.map(\.1))) AS x(id, status)
            WHERE c.id = x.id::uuid
              AND (c.status = \(constants: [CampaignStatus.sending]) OR (c.status = \(constants: [CampaignStatus.paused]) AND c.paused_from = \(CampaignStatus.sending)))
              AND NOT EXISTS (SELECT 1 FROM runs WHERE campaign_id = c.id AND status = \(constants: [RunStatus.sending]))
            RETURNING c.id, c.status
            """).map { try $0.decode((CampaignID, CampaignStatus).self, columns: "id", "status") }
        let counts = Dictionary(finished.map { ($0.0, (sent: $0.1, failed: $0.2)) }, uniquingKeysWith: { first, _ in first })
        let runEvents = closed.map { campaign, status, run -> (type: WebhookEventType, campaignID: CampaignID, extra: JSONObject) in
            (.runFinished, campaign, ["run": ["id": .string(run.description), "status": .string(status),
                                             "sent": .number(Double(counts[run]?.sent ?? 0)), "failed": .number(Double(counts[run]?.failed ?? 0))]])
        }
        let campaignEvents = ended.map { campaign, status -> (type: WebhookEventType, campaignID: CampaignID, extra: JSONObject) in
            (status == .failed ? .campaignFailed : status == .nothingSent ? .campaignNothingSent : .campaignFinished, campaign, [:])
        }
        try WebhookOutbox.enqueueCampaignEvents(runEvents + campaignEvents, on: connection)
    }

    /// Why a recipient-time request is expired when its run starts.
    static let missedWave = "its local time had already passed when the run started (recipient time, past: skip)"

    /// A recipient-time run closes with its last wave's latest-delivery time.
    static func lastExpiry(_ slots: [RecipientWaves.Slot]?) -> Date? {
        slots?.compactMap { if case .due(_, let expires) = $0 { expires } else { nil } }.max()
    }

    /// An instant as seconds since 1970 in text, "" for none (for `unnest` of nullable times).
    static func epoch(_ date: Date?) -> String {
        date.map { String(format: "%.6f", $0.timeIntervalSince1970) } ?? ""
    }
}

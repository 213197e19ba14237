import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// The SQL of streamed runs to devices (see Migrations/0017): no row per device. A claim leases
/// the next devices after the run's position as one batch and moves the position on; the
/// messages are rendered at send time from the version the run froze; a round's answers are
/// recorded as counts per variant and outcome, a row per failed device and a batch to try again.
struct StreamedRunStore: Sendable {
    let devices = DeviceStore()

    /// Starts a streamed run of `due` to `audience`; nil when the occurrence has a run already.
    /// It holds no devices yet: the workers' first claim reads the first of them.
    /// `controlGroup`: the project's, which a marketing run skips (nil for a transactional one).
    func start(_ due: DeliveryStore.Due, audience: DeviceAudience, rolloutVariant: String? = nil, controlGroup: ControlGroup?,
               expiresAt: Date? = nil, window: SendingWindow.Interval? = nil, on connection: PostgresConnection) throws -> DeliveryStore.StartedRun? {
        guard let runID = try RunWriter().insert([NewRun(
            kind: .devicesStreamed, campaignID: due.campaignID, occurrence: due.occurrenceText, version: due.version, content: due.content,
            audience: audience, rolloutVariant: rolloutVariant, expiresAt: expiresAt, window: window, controlGroup: controlGroup,
        )], on: connection).first?.runID else { return nil }
        // Not closed as empty when it starts: its position says whether devices remain.
        return DeliveryStore.StartedRun(campaignID: due.campaignID, runID: runID, deliveries: -1)
    }

    // MARK: - Claiming

    /// Up to `limit` requests of a streamed run, rendered: a batch waiting (a crashed worker's,
    /// or devices to try again) first, else the next devices after a run's position. One
    /// transaction: the lease and the moved position commit together.
    func claim(owner: String, limit: Int, lease: Duration, on connection: PostgresConnection) throws -> [DeliveryStore.Claimed] {
        try connection.transaction { connection in
            // A batch that holds no request (its devices all in the holdout, or gone) is done at once.
            for _ in 0..<16 {
                guard let (batchID, claimed) = try claimWaitingBatch(owner: owner, limit: limit, lease: lease, on: connection)
                        ?? claimNextDevices(owner: owner, limit: limit, lease: lease, on: connection) else { return [] }
                if !claimed.isEmpty { return claimed }
                _ = try connection.execute("""
                    UPDATE device_batches SET status = \(DeliveryStatus.sent), lease_owner = NULL, lease_expires_at = NULL WHERE id = \(batchID)
                    """)
            }
            return []
        }
    }

    private func claimWaitingBatch(owner: String, limit: Int, lease: Duration,
                                   on connection: PostgresConnection) throws -> (Int64, [DeliveryStore.Claimed])? {
        guard let row = try connection.query("""
            WITH picked AS (
                SELECT b.id FROM device_batches b JOIN runs r ON r.id = b.run_id
                WHERE b.status = \(DeliveryStatus.pending) AND b.next_attempt_at <= now()
                  AND (b.lease_expires_at IS NULL OR b.lease_expires_at < now()) AND b.devices <= \(limit)
                  AND \(fragment: SendRules.runMaySendNow)
                ORDER BY b.next_attempt_at, b.id LIMIT 1
                FOR UPDATE OF b SKIP LOCKED
            )
            UPDATE device_batches b SET lease_owner = \(owner), lease_expires_at = now() + make_interval(secs => \(lease.seconds)),
                attempts = b.attempts + 1
            FROM runs r WHERE b.id = (SELECT id FROM picked) AND r.id = b.run_id
            RETURNING b.id, b.run_id::text, b.after_token, b.last_token, b.tokens, b.attempts, r.campaign_id::text, r.content::text,
                      r.audience::text, r.rollout_variant, extract(epoch FROM now() - r.occurrence)::float8 AS lateness, r.control_basis_points,
                      r.control_salt, EXISTS (SELECT 1 FROM run_skips s WHERE s.run_id = r.id) AS skips
            """).first else { return nil }
        let (batchID, runID, after, last, tokens, attempts, campaignID, content, audienceText, rollout, lateness, basisPoints, salt) =
            try row.decode((Int64, String, String?, String?, [String]?, Int, String, String, String, String?, Double, Int, String?).self, columns: "id", "run_id", "after_token", "last_token", "tokens", "attempts", "campaign_id", "content", "audience", "rollout_variant", "lateness", "control_basis_points", "control_salt")
        guard let run = RunMessages(campaignID: campaignID, content: content, audience: audienceText, rollout: rollout,
                                    controlGroup: RunMessages.controlGroup(basisPoints: basisPoints, salt: salt)) else {
            return (batchID, [])
        }
        let found: [StoredDevice]
        if let tokens {
            found = try devices.active(.tokens(tokens), after: nil, through: nil, limit: tokens.count, on: connection)
        } else {
            found = try withoutSkipped(devices.active(run.audience, after: after, through: last, limit: limit, on: connection), runID: runID,
                                       skips: try row.decode(Bool.self, column: "skips"), on: connection)
        }
        let batch = StreamedBatch(id: batchID, runID: runID, counted: tokens == nil, attempts: attempts)
        return (batchID, try run.claimed(found, batch: batch, lateness: lateness, on: connection))
    }

    private func claimNextDevices(owner: String, limit: Int, lease: Duration,
                                  on connection: PostgresConnection) throws -> (Int64, [DeliveryStore.Claimed])? {
        // The run row's lock orders the claimers of one run: each reads after the position the
        // one before it committed (waiting a few milliseconds for it, not skipping the run).
        guard let row = try connection.query("""
            SELECT r.id::text, r.plan_after, r.campaign_id::text, r.content::text, r.audience::text, r.rollout_variant,
                   extract(epoch FROM now() - r.occurrence)::float8 AS lateness, r.control_basis_points, r.control_salt,
                   EXISTS (SELECT 1 FROM run_skips s WHERE s.run_id = r.id) AS skips
            FROM runs r WHERE r.streamed AND r.planning AND \(fragment: SendRules.runMaySendNow)
            ORDER BY r.occurrence, r.id LIMIT 1
            FOR UPDATE OF r
            """).first else { return nil }
        let (runID, after, campaignID, content, audienceText, rollout, lateness, basisPoints, salt) =
            try row.decode((String, String?, String, String, String, String?, Double, Int, String?).self, columns: "id", "plan_after", "campaign_id", "content", "audience", "rollout_variant", "lateness", "control_basis_points", "control_salt")
        guard let run = RunMessages(campaignID: campaignID, content: content, audience: audienceText, rollout: rollout,
                                    controlGroup: RunMessages.controlGroup(basisPoints: basisPoints, salt: salt)) else {
            _ = try connection.execute("UPDATE runs SET planning = false WHERE id = \(runID)::uuid")
            try DeliveryStore().closeRuns([runID], on: connection)
            return nil
        }
        let found = try devices.active(run.audience, after: after, through: nil, limit: limit, on: connection)
        guard let last = found.last?.device.token else {
            // The audience is exhausted: the run ends once its batches in flight are recorded.
            _ = try connection.execute("UPDATE runs SET planning = false, plan_after = NULL WHERE id = \(runID)::uuid")
            try DeliveryStore().closeRuns([runID], on: connection)
            return nil
        }
        let batchID = try connection.query("""
            INSERT INTO device_batches (run_id, campaign_id, after_token, last_token, devices, attempts, lease_owner, lease_expires_at)
            VALUES (\(runID)::uuid, \(campaignID)::uuid, \(after), \(last), \(found.count), 1, \(owner),
                    now() + make_interval(secs => \(lease.seconds)))
            RETURNING id
            """).first?.decode(Int64.self, at: 0) ?? 0
        _ = try connection.execute("""
            UPDATE runs SET plan_after = \(last), planning = \(found.count == limit) WHERE id = \(runID)::uuid
            """)
        // The position moves past every device read; a device the run skips (moved to an FID it had
        // read under its token) gets no request of this batch.
        let sending = try withoutSkipped(found, runID: runID, skips: try row.decode(Bool.self, column: "skips"), on: connection)
        return (batchID, try run.claimed(sending, batch: StreamedBatch(id: batchID, runID: runID, counted: true, attempts: 1), lateness: lateness,
                                         on: connection))
    }

    /// Seconds until a streamed run has something to claim: now while a sendable run has devices
    /// left to read, else its next batch's turn (a retry, or a dead worker's lease running out).
    func secondsUntilNextBatch(on connection: PostgresConnection) throws -> Double? {
        try connection.query("""
            SELECT least(
                (SELECT 0::float8 FROM runs r WHERE r.streamed AND r.planning AND \(fragment: SendRules.runMaySendNow) LIMIT 1),
                (SELECT extract(epoch FROM min(greatest(b.next_attempt_at, coalesce(b.lease_expires_at, b.next_attempt_at),
                                                        coalesce(r.window_opens_at, b.next_attempt_at))) - now())::float8
                 FROM device_batches b JOIN runs r ON r.id = b.run_id
                 WHERE b.status = \(DeliveryStatus.pending) AND r.status = \(RunStatus.sending)
                   AND (r.expires_at IS NULL OR r.expires_at > now()) AND (r.window_closes_at IS NULL OR r.window_closes_at > now())))
            """).first?.decode(Double?.self, at: 0) ?? nil
    }

    /// Extends the leases `owner` holds on these batches.
    func renew(_ ids: [Int64], owner: String, lease: Duration, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            UPDATE device_batches SET lease_expires_at = now() + make_interval(secs => \(lease.seconds))
            WHERE id = ANY(\(ids.map(String.init))::bigint[]) AND lease_owner = \(owner) AND status = \(DeliveryStatus.pending)
            """)
    }

    // MARK: - Recording

    /// Writes a round's answers for the batches `owner` still holds: each batch is done, its
    /// counts added (planned for a first reading of a range), its failed devices kept with
    /// FCM's reason, the devices to try again batched for later. In the caller's transaction.
    func record(_ outcomes: [DeliveryStore.Outcome], owner: String, on connection: PostgresConnection) throws {
        let batchIDs = Array(Set(outcomes.compactMap { $0.device?.batch.id }))
        guard !batchIDs.isEmpty else { return }
        // A batch whose lease expired and was taken over is its new holder's to record.
        let held = Set(try connection.query("""
            UPDATE device_batches SET status = CASE WHEN status = \(DeliveryStatus.pending) THEN \(DeliveryStatus.sent) ELSE status END,
                lease_owner = NULL, lease_expires_at = NULL
            WHERE id = ANY(\(batchIDs.map(String.init))::bigint[]) AND lease_owner = \(owner)
            RETURNING id
            """).map { try $0.decode(Int64.self, at: 0) })
        let mine = outcomes.filter { $0.device.map { held.contains($0.batch.id) } ?? false }
        guard !mine.isEmpty else { return }

        // The devices to try again, batched by how long FCM asked them to wait (a doubling of the
        // wait a batch: a device's 429 asks a minute, a 503's Retry-After two seconds, and neither
        // waits for the other), each batch after the longest wait of its devices; a run stopped
        // meanwhile (cancelled, expired) tries nothing again: they count as dropped.
        var dropped: [String: DeliveryStatus] = [:]
        let retrying = Dictionary(grouping: mine.filter { $0.status == .retrying }) { outcome in
            "\(outcome.device!.batch.id):\(Self.waitClass(outcome.retryDelay?.seconds ?? 1))"
        }
        for (_, outcomes) in retrying.sorted(by: { $0.key < $1.key }) {
            let batch = outcomes[0].device!.batch
            let delay = outcomes.compactMap { $0.retryDelay?.seconds }.max() ?? 1
            let inserted = try connection.query("""
                INSERT INTO device_batches (run_id, campaign_id, tokens, variants, devices, attempts, next_attempt_at)
                SELECT id, campaign_id, \(outcomes.map { $0.device!.token }), \(outcomes.map { $0.device!.variant }), \(outcomes.count),
                       \(batch.attempts), now() + make_interval(secs => \(delay))
                FROM runs WHERE id = \(batch.runID)::uuid AND status = \(RunStatus.sending)
                RETURNING id
                """)
            if inserted.isEmpty { dropped[batch.runID] = .cancelled }
        }

        var counts = RunCounts()
        for outcome in mine {
            guard let device = outcome.device else { continue }
            let run = device.batch.runID
            if device.batch.counted { counts.add(run, device.variant, RunCounts.planned) }
            if !device.batch.counted { counts.add(run, device.variant, DeliveryStatus.retrying.rawValue, -1) }
            let status = outcome.status == .retrying ? dropped[run] ?? .retrying : outcome.status
            counts.add(run, device.variant, status.rawValue)
        }
        try counts.write(on: connection)

        let failed = mine.filter { $0.status == .failed }
        if !failed.isEmpty {
            _ = try connection.execute("""
                INSERT INTO delivery_failures (run_id, campaign_id, device_token, variant_key, attempts, error_code, error_message)
                SELECT x.r::uuid, r.campaign_id, x.t, x.v, x.a::integer, nullif(x.c, ''), nullif(x.m, '')
                FROM unnest(\(failed.map { $0.device!.batch.runID }), \(failed.map { $0.device!.token }), \(failed.map { $0.device!.variant }),
                            \(failed.map { String($0.device!.batch.attempts) }), \(failed.map { $0.errorCode ?? "" }), \(failed.map { $0.errorMessage ?? "" }))
                     AS x(r, t, v, a, c, m)
                JOIN runs r ON r.id = x.r::uuid
                """)
            // Token hygiene: a device FCM no longer knows is sent nothing again until it registers anew.
            let refused = failed.filter(DeliveryStore.meansInvalidToken)
            if !refused.isEmpty {
                let invalidated = try connection.query("""
                    UPDATE devices SET status = \(constants: [DeviceStatus.invalid]), invalid_reason = x.c || ': ' || x.m, updated_at = now()
                    FROM unnest(\(refused.map { $0.device!.token }), \(refused.map { $0.errorCode ?? "" }), \(refused.map { $0.errorMessage ?? "" })) AS x(t, c, m)
                    WHERE token = x.t AND status <> \(constants: [DeviceStatus.invalid])
                    RETURNING token, kind, platform, app_id, invalid_reason
                    """)
                try WebhookOutbox.enqueueInvalidatedDevices(invalidated, on: connection)
            }
        }
    }

    /// The doubling a wait falls in (up to 1 s, 2 s, 4 s…): the retries of one batch that wait
    /// about as long go together.
    static func waitClass(_ seconds: Double) -> Int {
        seconds <= 1 ? 0 : Int(log2(seconds).rounded(.up))
    }

    // MARK: - Stopping

    /// Drops the waiting batches of these runs (cancelled or expired): the devices of a batch to
    /// try again count as `status`; a range never recorded was never counted as planned.
    func drop(runs runIDs: [String]? = nil, campaign campaignID: String? = nil, as status: DeliveryStatus, on connection: PostgresConnection) throws {
        let dropped = try connection.query("""
            UPDATE device_batches SET status = \(status)
            -- A batch in flight is its worker's to record (what it sent reached FCM).
            WHERE status = \(DeliveryStatus.pending) AND (lease_expires_at IS NULL OR lease_expires_at < now())
              AND (\(campaignID)::uuid IS NULL OR campaign_id = \(campaignID)::uuid)
              AND (\(runIDs)::uuid[] IS NULL OR run_id = ANY(\(runIDs)::uuid[]))
            RETURNING run_id::text, variants
            """).map { try $0.decode((String, [String]?).self, columns: "run_id", "variants") }
        var counts = RunCounts()
        for (runID, variants) in dropped {
            for variant in variants ?? [] {
                counts.add(runID, variant, DeliveryStatus.retrying.rawValue, -1)
                counts.add(runID, variant, status.rawValue)
            }
        }
        try counts.write(on: connection)
    }
}

/// A leased batch, as each of its requests carries it back to be recorded.
struct StreamedBatch: Sendable, Equatable {
    var id: Int64
    var runID: String
    /// A first reading of a range of the audience: its devices count as planned when recorded
    /// (devices to try again were counted when first read).
    var counted: Bool
    var attempts: Int
}

/// The device a streamed request goes to.
struct StreamedDevice: Sendable, Equatable {
    var batch: StreamedBatch
    var token: String
    var variant: String
}

/// What a streamed run sends, rebuilt from what it froze: the planner of its campaign version
/// (or of its winner's rollout) and its audience.
struct RunMessages {
    let spec: CampaignSpec
    var planner: DevicePlanner
    let audience: DeviceAudience

    /// Nil when the frozen content no longer parses. A streamed run renders as it sends (`sendTime`
    /// now: `apns-expiration` counts from the send, as Android's `ttl` does); a run that stores its
    /// requests renders at its occurrence, and each request's expiry moves on when it is claimed.
    /// `controlGroup`: what the run froze of the project's control group when it started.
    init?(campaignID: String, content: String, audience: String, rollout: String?, controlGroup: ControlGroup?, sendTime: Date = Date()) {
        guard let json = try? JSON.parse(content), case .success(let spec) = CampaignSpec.parse(json),
              let parsedAudience = (try? JSON.parse(audience)).flatMap(DeviceAudience.init(json:)) else { return nil }
        self.spec = spec
        planner = rollout.flatMap { DevicePlanner(rollout: $0, of: spec.forSending, campaignID: campaignID, sendTime: sendTime) }
            ?? DevicePlanner(campaign: spec.forSending, campaignID: campaignID, sendTime: sendTime)
        planner.controlGroup = controlGroup
        self.audience = parsedAudience
    }

    /// The control group a run froze: its share (0: none) and salt, as its row keeps them.
    static func controlGroup(basisPoints: Int, salt: String?) -> ControlGroup? {
        guard basisPoints > 0, let salt else { return nil }
        return ControlGroup(basisPoints: basisPoints, salt: salt)
    }

    /// The requests of a streamed batch, rendered and checked against the frequency caps.
    func claimed(_ devices: [StoredDevice], batch: StreamedBatch, lateness: Double, on connection: PostgresConnection) throws -> [DeliveryStore.Claimed] {
        let rendered = render(devices, batch: batch, lateness: lateness)
        return try SendRules.applyContactPolicy(rendered, tokens: rendered.map { $0.device?.token ?? "" }, layout: .range,
                                                contents: [batch.runID: spec], on: connection)
    }

    /// Each device's request; a device in the holdout gets none, and one whose message is over
    /// FCM's limit gets an empty body, which the engine records as failed without sending.
    func render(_ devices: [StoredDevice], batch: StreamedBatch, lateness: Double) -> [DeliveryStore.Claimed] {
        devices.compactMap { stored in
            guard let request = planner.request(for: stored.device) else { return nil }
            return DeliveryStore.Claimed(id: batch.id, runID: batch.runID, body: request.failure == nil ? Array((request.body ?? "").utf8) : [],
                                         attempts: batch.attempts, lateness: lateness,
                                         device: StreamedDevice(batch: batch, token: request.token, variant: request.variantKey),
                                         failure: request.failure)
        }
    }
}

/// Counts to add to `run_counts`, keyed by run, variant and outcome, written in one statement
/// into this hour's row of this connection's shard.
struct RunCounts {
    static let planned = "planned"
    private var counts: [String: (run: String, variant: String, outcome: String, n: Int)] = [:]

    mutating func add(_ run: String, _ variant: String, _ outcome: String, _ n: Int = 1) {
        let key = run + "\u{0}" + variant + "\u{0}" + outcome
        counts[key, default: (run, variant, outcome, 0)].n += n
    }

    func write(on connection: PostgresConnection) throws {
        let rows = counts.values.filter { $0.n != 0 }
        guard !rows.isEmpty else { return }
        _ = try connection.execute("""
            INSERT INTO run_counts (run_id, variant_key, outcome, hour, shard, n)
            SELECT x.r::uuid, x.v, x.o, date_trunc('hour', now()), pg_backend_pid() % 16, x.n::bigint
            FROM unnest(\(rows.map(\.run)), \(rows.map(\.variant)), \(rows.map(\.outcome)), \(rows.map { String($0.n) })) AS x(r, v, o, n)
            ORDER BY 1, 2, 3
            ON CONFLICT (run_id, variant_key, outcome, hour, shard) DO UPDATE SET n = run_counts.n + excluded.n
            """)
    }
}

import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

// The claim module: every request the engine sends is leased here, whatever kind of run it
// belongs to, and each claim reads whether its run and request may be sent now from SendRules.
// A worker's claim takes, in this order: the next devices of a streamed run (or a batch of one
// waiting), requests of runs with a row per device (planned runs and one-call sends), else
// topic and condition fan-outs, one per run and `fanOutsAtOnce` across the project.

extension DeliveryStore {
    /// At most one delivery of a run is in flight at a time, across every worker and instance: a
    /// topic or condition request reaches every subscribed device, so a crash during it may repeat
    /// one fan-out request, never several (FCM also asks for one topic fan-out at a time). The run
    /// rows are locked (SKIP LOCKED) so that two claimers never pick the same run at once.
    ///
    /// A run to devices has no such limit: each of its requests reaches one device, so a crash
    /// repeats at most the requests in flight, each once, and up to `deviceLimit` are claimed at once.
    ///
    /// With `fanOutsAtOnce`, at most that many topic or condition requests are in flight across
    /// the whole project (FCM asks for one topic fan-out at a time); the runs waiting their turn
    /// are the queue the report shows. An advisory lock makes the count and the claim one step.
    /// With `fanOutHold`, the shared bucket row (`send_buckets`) whose hold (after a 429 to a
    /// fan-out) every instance's fan-out claims wait out; requests to devices do not.
    func claim(owner: String, limit: Int, deviceLimit: Int? = nil, lease: Duration, fanOutsAtOnce: Int? = nil, fanOutHold: String? = nil,
               on connection: PostgresConnection) throws -> [Claimed] {
        // Requests to single devices first, without the fan-out lock: they are no fan-outs, and
        // workers claiming them at once must not queue behind each other. Streamed runs first.
        let streamed = try StreamedRunStore().claim(owner: owner, limit: deviceLimit ?? limit, lease: lease, on: connection)
        guard streamed.isEmpty else { return streamed }
        let perDevice = try claimDevices(owner: owner, limit: deviceLimit ?? limit, lease: lease, on: connection)
        guard perDevice.isEmpty else { return perDevice }
        // Claimers of fan-outs take turns, whatever the limit: the claim's snapshot is taken after
        // the lock is held, so it sees the leases the previous claimer committed. Without the lock,
        // a claim whose snapshot predated another's commit took a second request of a run that had
        // just been claimed (FanOutClaimRaceTests), and so did the count of fan-outs in flight.
        return try connection.transaction { connection in
            _ = try connection.query("SELECT pg_advisory_xact_lock(\(Self.fanOutLock))")
            return try claimFanOuts(owner: owner, limit: limit, lease: lease, fanOutsAtOnce: fanOutsAtOnce, fanOutHold: fanOutHold, on: connection)
        }
    }

    /// Up to `limit` requests to single devices that are due, of runs that may send now.
    func claimDevices(owner: String, limit: Int, lease: Duration, on connection: PostgresConnection) throws -> [Claimed] {
        let rows = try connection.query("""
            -- The first requests of each run still sending, read in order from deliveries_run_ready (the
            -- statuses as constants, so that its partial index serves), then the first of those: a
            -- plain join read every waiting request of a large run and sorted them, every round.
            WITH picked AS (
                SELECT p.id FROM runs r
                CROSS JOIN LATERAL (
                    SELECT d.id, d.next_attempt_at FROM deliveries d
                    WHERE d.run_id = r.id AND \(fragment: SendRules.requestMaySendNow)
                    ORDER BY d.next_attempt_at, d.id LIMIT \(limit)
                    FOR UPDATE OF d SKIP LOCKED
                ) p
                WHERE r.kind IN (\(constants: RunKind.toDevices)) AND \(fragment: SendRules.runMaySendNow)
                ORDER BY p.next_attempt_at, p.id LIMIT \(limit)
            )
            UPDATE deliveries d SET lease_owner = \(owner), lease_expires_at = now() + make_interval(secs => \(lease.seconds)),
                attempts = d.attempts + 1, updated_at = now()
            FROM runs r
            WHERE r.id = d.run_id AND d.id IN (SELECT id FROM picked)
            RETURNING d.id, d.run_id::text AS run_id, d.body, d.attempts, extract(epoch FROM now() - r.occurrence)::float8 AS lateness,
                      d.device_token
            """)
        try rows.requireColumns(Self.claimedColumns + ["device_token"])
        let claimed = try rows.map(Self.claimed)
        guard !claimed.isEmpty else { return claimed }
        let tokens = try rows.map { try $0.decode(DeviceToken?.self, at: 5) ?? DeviceToken("") }
        // Each run's content says its category and whether it is transactional.
        let contents = try connection.query("""
            SELECT id, content::text FROM runs WHERE id = ANY(\(Array(Set(claimed.map(\.runID))))::uuid[])
            """).reduce(into: [RunID: CampaignSpec]()) { contents, row in
            let (runID, content) = try row.decode((RunID, String).self, columns: "id", "content")
            if let json = try? JSON.parse(content), case .success(let spec) = CampaignSpec.parse(json) { contents[runID] = spec }
        }
        return try SendRules.applyContactPolicy(claimed, tokens: tokens, layout: .scattered, contents: contents, on: connection)
    }

    /// At most one topic or condition request per run (and, with `fanOutsAtOnce`, per project).
    func claimFanOuts(owner: String, limit: Int, lease: Duration, fanOutsAtOnce: Int?, fanOutHold: String? = nil,
                      on connection: PostgresConnection) throws -> [Claimed] {
        let seconds = lease.seconds
        let rows = try connection.query("""
            WITH ready AS (
                SELECT r.id FROM runs r
                -- A paused campaign's deliveries wait where they are, unclaimed, until it is resumed.
                WHERE r.kind = \(constants: [RunKind.fanOut]) AND \(fragment: SendRules.runMaySendNow)
                  -- FCM answered 429 to a fan-out: every instance's fan-outs wait what it asked.
                  AND NOT EXISTS (SELECT 1 FROM send_buckets h WHERE h.project = \(fanOutHold) AND h.not_before > clock_timestamp())
                  AND EXISTS (SELECT 1 FROM deliveries d WHERE d.run_id = r.id AND \(fragment: SendRules.requestMaySendNow))
                  AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.run_id = r.id AND d.status IN (\(constants: DeliveryStatus.open))
                                  AND d.lease_expires_at >= now())
                ORDER BY r.occurrence, r.id LIMIT \(limit)
                FOR UPDATE OF r SKIP LOCKED
            ), picked AS (
                SELECT (SELECT d.id FROM deliveries d
                        WHERE d.run_id = ready.id AND \(fragment: SendRules.requestMaySendNow)
                        ORDER BY d.next_attempt_at, d.id LIMIT 1 FOR UPDATE SKIP LOCKED) AS id
                FROM ready
            ), fan_outs AS (
                SELECT p.id FROM picked p JOIN deliveries f ON f.id = p.id WHERE NOT (f.target ? 'token')
                ORDER BY f.next_attempt_at, f.id
                LIMIT (SELECT CASE WHEN \(fanOutsAtOnce)::integer IS NULL THEN NULL
                                   -- Read through the topic runs sending (few), not the whole outbox.
                                   ELSE greatest(0, \(fanOutsAtOnce)::integer - (
                                       SELECT count(*) FROM runs fr JOIN deliveries l ON l.run_id = fr.id
                                       WHERE fr.status = \(constants: [RunStatus.sending]) AND fr.kind = \(constants: [RunKind.fanOut])
                                         AND l.status IN (\(constants: DeliveryStatus.open))
                                         AND l.lease_expires_at >= now() AND NOT (l.target ? 'token'))) END)
            )
            UPDATE deliveries d SET lease_owner = \(owner), lease_expires_at = now() + make_interval(secs => \(seconds)),
                attempts = d.attempts + 1, updated_at = now()
            FROM runs r
            WHERE r.id = d.run_id
              AND (d.id IN (SELECT id FROM fan_outs) OR (d.target ? 'token' AND d.id IN (SELECT id FROM picked WHERE id IS NOT NULL)))
            RETURNING d.id, d.run_id::text AS run_id, d.body, d.attempts, extract(epoch FROM now() - r.occurrence)::float8 AS lateness,
                      NOT (d.target ? 'token') AS fan_out
            """)
        try rows.requireColumns(Self.claimedColumns + ["fan_out"])
        return try rows.map { row in
            var claimed = try Self.claimed(row)
            claimed.fanOut = try row.decode(Bool.self, at: 5)
            return claimed
        }
    }

    /// What a claim returns first, in this order: checked once per claim, read by position per request.
    static let claimedColumns = ["id", "run_id", "body", "attempts", "lateness"]

    static func claimed(_ row: PostgresRow) throws -> Claimed {
        // By position (see `claimedColumns`): a claim of requests to devices reads their tokens after these.
        let (id, runID, body) = (try row.decode(Int64.self, at: 0), try row.decode(RunID.self, at: 1), try row.decode(String.self, at: 2))
        let (attempts, lateness) = (try row.decode(Int.self, at: 3), try row.decode(Double.self, at: 4))
        // Rendered when the run was planned (its occurrence): the iOS lifetime counts from now, as Android's does.
        return Claimed(id: id, runID: runID, body: APNSExpiration.rebased(Array(body.utf8), by: Int64(lateness.rounded(.down))),
                       attempts: attempts, lateness: lateness)
    }
}

extension StreamedRunStore {
    /// Up to `limit` requests of streamed runs, rendered: batches waiting (a journey step's
    /// devices, a crashed worker's, devices to try again) first, as many as the round holds, else
    /// the next devices after a run's position. One transaction: the leases and the moved
    /// position commit together.
    func claim(owner: String, limit: Int, lease: Duration, on connection: PostgresConnection) throws -> [DeliveryStore.Claimed] {
        try connection.transaction { connection in
            let waiting = try claimWaitingBatches(owner: owner, limit: limit, lease: lease, on: connection)
            var claimed = waiting.flatMap(\.requests)
            var done = waiting.filter(\.requests.isEmpty).map(\.batchID)
            // A range of an audience whose devices all get nothing (the holdout, gone) is done, and the next is read.
            for _ in 0..<16 where claimed.isEmpty {
                guard let (batchID, requests) = try claimNextDevices(owner: owner, limit: limit, lease: lease, on: connection) else { break }
                claimed = requests
                if requests.isEmpty { done.append(batchID) }
            }
            // A batch that holds no request is done at once.
            if !done.isEmpty {
                _ = try connection.execute("""
                    UPDATE device_batches SET status = \(constants: [DeliveryStatus.sent]), lease_owner = NULL, lease_expires_at = NULL,
                        tokens = NULL, variants = NULL
                    WHERE id = ANY(\(done.map(String.init))::bigint[])
                    """)
            }
            return claimed
        }
    }

    /// The waiting batches first due that fit in a round of `limit` devices, leased in one
    /// statement, their devices read at once, their requests rendered and checked against the caps
    /// together (a journey's batches are 32 devices, a round hundreds). Each sending run's first
    /// due batches are locked along `device_batches_run_due` (a few per run, however many wait),
    /// and the first of those taken: one path, which statistics older than a step's million
    /// devices cannot turn into a walk of every pending batch (a second read of the candidates by
    /// id was planned as one, 314 ms).
    private func claimWaitingBatches(owner: String, limit: Int, lease: Duration,
                                     on connection: PostgresConnection) throws -> [(batchID: Int64, requests: [DeliveryStore.Claimed])] {
        let rows = try connection.query("""
            WITH picked AS (
                SELECT c.id, c.devices, c.next_attempt_at FROM runs r CROSS JOIN LATERAL (
                    SELECT b.id, b.devices, b.next_attempt_at FROM device_batches b
                    WHERE b.run_id = r.id AND b.status = \(constants: [DeliveryStatus.pending]) AND b.next_attempt_at <= now()
                      AND (b.lease_expires_at IS NULL OR b.lease_expires_at < now()) AND b.devices <= \(limit)
                    ORDER BY b.next_attempt_at, b.id LIMIT \(Self.batchesPerRun(limit: limit))
                    FOR UPDATE OF b SKIP LOCKED) c
                WHERE \(fragment: SendRules.runMaySendNow)
                ORDER BY c.next_attempt_at, c.id LIMIT \(Self.batchesPerRound)
            ), fitting AS (
                SELECT id FROM (SELECT id, sum(devices) OVER (ORDER BY next_attempt_at, id) AS upto FROM picked) AS p WHERE upto <= \(limit)
            )
            UPDATE device_batches b SET lease_owner = \(owner), lease_expires_at = now() + make_interval(secs => \(lease.seconds)),
                attempts = b.attempts + 1
            FROM runs r WHERE b.id IN (SELECT id FROM fitting) AND r.id = b.run_id
            RETURNING b.id, b.run_id::text, b.after_token, b.last_token, b.tokens, b.attempts, r.campaign_id::text, r.content::text,
                      r.audience::text, r.rollout_variant, extract(epoch FROM now() - r.occurrence)::float8 AS lateness, r.control_basis_points,
                      r.control_salt, EXISTS (SELECT 1 FROM run_skips s WHERE s.run_id = r.id) AS skips, r.kind,
                      b.tokens IS NOT NULL AND b.variants IS NULL AS first_sent
            """)
        guard !rows.isEmpty else { return [] }
        struct Leased {
            var batch: StreamedBatch
            var after: DeviceToken?, last: DeviceToken?, tokens: [DeviceToken]?
            var lateness: Double
            var skips: Bool
        }
        var leased: [Leased] = []
        var runs: [RunID: RunMessages?] = [:]
        for row in rows {
            let (batchID, runID, after, last, tokens, attempts, campaignID, content, audienceText, rollout, lateness, basisPoints, salt) =
                try row.decode((Int64, RunID, DeviceToken?, DeviceToken?, [DeviceToken]?, Int, CampaignID, String, String, String?, Double, Int, String?).self, columns: "id", "run_id", "after_token", "last_token", "tokens", "attempts", "campaign_id", "content", "audience", "rollout_variant", "lateness", "control_basis_points", "control_salt")
            let (kind, firstSent, skips) = try row.decode((RunKind, Bool, Bool).self, columns: "kind", "first_sent", "skips")
            if runs[runID] == nil {
                runs[runID] = RunMessages(campaignID: campaignID, content: content, audience: audienceText, rollout: rollout,
                                          controlGroup: RunMessages.controlGroup(basisPoints: basisPoints, salt: salt), rolloutToAll: kind == .journey)
            }
            // A range, or devices named for their first send (a journey step's), count as planned when
            // recorded; devices to try again were counted when first read.
            leased.append(Leased(batch: StreamedBatch(id: batchID, runID: runID, counted: tokens == nil || firstSent, attempts: attempts),
                                 after: after, last: last, tokens: tokens, lateness: lateness, skips: skips))
        }
        // The named devices of every batch in one read, found by token or by the token they moved from.
        let named = Array(Set(leased.flatMap { $0.tokens ?? [] }.map(\.description)))
        var byToken: [String: StoredDevice] = [:]
        if !named.isEmpty {
            for stored in try devices.active(.tokens(named), after: nil, through: nil, limit: named.count, on: connection) {
                byToken[stored.device.token] = stored
                if let key = stored.device.bucketKey { byToken[key] = stored }
            }
        }
        var rendered: [(batchID: Int64, requests: [DeliveryStore.Claimed])] = []
        var contents: [RunID: CampaignSpec] = [:]
        for item in leased {
            guard let run = runs[item.batch.runID] ?? nil else {
                rendered.append((item.batch.id, []))  // its frozen content no longer parses: nothing to send
                continue
            }
            contents[item.batch.runID] = run.spec
            let found: [StoredDevice]
            if let tokens = item.tokens {
                var seen: Set<String> = []
                found = tokens.compactMap { byToken[$0.description] }.filter { seen.insert($0.device.token).inserted }
            } else {
                found = try withoutSkipped(devices.active(run.audience, after: item.after?.description, through: item.last?.description, limit: limit,
                                                          on: connection), runID: item.batch.runID, skips: item.skips, on: connection)
            }
            rendered.append((item.batch.id, run.render(found, batch: item.batch, lateness: item.lateness)))
        }
        // The caps, once for the round: each request keeps its place, capped or not.
        let all = rendered.flatMap(\.requests)
        let checked = try SendRules.applyContactPolicy(all, tokens: all.map { $0.device?.token ?? DeviceToken("") }, layout: .range,
                                                       contents: contents, on: connection)
        var position = 0
        return rendered.map { batch in
            defer { position += batch.requests.count }
            return (batch.batchID, Array(checked[position..<(position + batch.requests.count)]))
        }
    }

    /// The most waiting batches one round takes.
    static let batchesPerRound = 64

    /// The most waiting batches of one run a round locks: as many as a round of `limit` devices
    /// holds of a journey's (`RunWriter.batchDevices`), a crashed worker's range counting as one.
    static func batchesPerRun(limit: Int) -> Int {
        min(batchesPerRound, max(1, (limit + RunWriter.batchDevices - 1) / RunWriter.batchDevices))
    }

    private func claimNextDevices(owner: String, limit: Int, lease: Duration,
                                  on connection: PostgresConnection) throws -> (Int64, [DeliveryStore.Claimed])? {
        // The run row's lock orders the claimers of one run: each reads after the position the
        // one before it committed (waiting a few milliseconds for it, not skipping the run).
        guard let row = try connection.query("""
            SELECT r.id::text, r.plan_after, r.campaign_id::text, r.content::text, r.audience::text, r.rollout_variant,
                   extract(epoch FROM now() - r.occurrence)::float8 AS lateness, r.control_basis_points, r.control_salt,
                   EXISTS (SELECT 1 FROM run_skips s WHERE s.run_id = r.id) AS skips
            FROM runs r WHERE r.kind = \(constants: [RunKind.devicesStreamed]) AND r.planning AND \(fragment: SendRules.runMaySendNow)
            ORDER BY r.occurrence, r.id LIMIT 1
            FOR UPDATE OF r
            """).first else { return nil }
        let (runID, after, campaignID, content, audienceText, rollout, lateness, basisPoints, salt) =
            try row.decode((RunID, DeviceToken?, CampaignID, String, String, String?, Double, Int, String?).self, columns: "id", "plan_after", "campaign_id", "content", "audience", "rollout_variant", "lateness", "control_basis_points", "control_salt")
        guard let run = RunMessages(campaignID: campaignID, content: content, audience: audienceText, rollout: rollout,
                                    controlGroup: RunMessages.controlGroup(basisPoints: basisPoints, salt: salt)) else {
            _ = try connection.execute("UPDATE runs SET planning = false, plan_after = NULL WHERE id = \(runID)::uuid")
            try DeliveryStore().closeRuns([runID], on: connection)
            return nil
        }
        let found = try devices.active(run.audience, after: after?.description, through: nil, limit: limit, on: connection)
        guard let last = found.last.map({ DeviceToken($0.device.token) }) else {
            // The audience is exhausted: the run ends once its batches in flight are recorded.
            _ = try connection.execute("UPDATE runs SET planning = false, plan_after = NULL WHERE id = \(runID)::uuid")
            try DeliveryStore().closeRuns([runID], on: connection)
            return nil
        }
        let batchID = try RunWriter().insertRange(runID: runID, campaignID: campaignID, after: after, last: last, devices: found.count,
                                                  owner: owner, lease: lease, on: connection)
        // A run that has read its whole audience keeps no position: nothing reads one, and a device
        // forgotten later would stay named there.
        let position: DeviceToken? = found.count == limit ? last : nil
        _ = try connection.execute("""
            UPDATE runs SET plan_after = \(position), planning = \(found.count == limit) WHERE id = \(runID)::uuid
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
                (SELECT 0::float8 FROM runs r WHERE r.kind = \(constants: [RunKind.devicesStreamed]) AND r.planning AND \(fragment: SendRules.runMaySendNow) LIMIT 1),
                (SELECT extract(epoch FROM min(greatest(b.next_attempt_at, coalesce(b.lease_expires_at, b.next_attempt_at),
                                                        coalesce(r.window_opens_at, b.next_attempt_at))) - now())::float8
                 FROM device_batches b JOIN runs r ON r.id = b.run_id
                 WHERE b.status = \(constants: [DeliveryStatus.pending]) AND r.status = \(constants: [RunStatus.sending])
                   AND (r.expires_at IS NULL OR r.expires_at > now()) AND (r.window_closes_at IS NULL OR r.window_closes_at > now())))
            """).first?.decode(Double?.self, at: 0) ?? nil
    }
}

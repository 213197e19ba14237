import Foundation
import HeraldCore
import HeraldPostgres

// The recorder: what FCM answered for a round, whatever kind of run its requests belong to,
// written in one transaction with the runs it finished (request rows, streamed batches' counts
// and failures, token hygiene, the pause for answers that concern every request).

extension DeliveryStore {
    /// Writes the outcomes of deliveries `owner` still holds (a lease taken over by another worker
    /// after expiry is theirs to record), then closes the runs that are finished.
    func record(_ outcomes: [Outcome], owner: String, runIDs: Set<RunID>, on connection: PostgresConnection) throws {
        guard !outcomes.isEmpty else { return }
        try connection.transaction { connection in
            try StreamedRunStore().record(outcomes, owner: owner, on: connection)
            let deliveries = outcomes.filter { $0.device == nil }
            if !deliveries.isEmpty { try recordDeliveries(deliveries, owner: owner, on: connection) }
            // Answers that say the configuration is wrong pause the run and wait for its resume.
            let refused = outcomes.filter { $0.status == .failed && ConfigurationPause.concerns($0.errorCode) }
            if !refused.isEmpty {
                let deliveryRuns = try connection.query("""
                    SELECT DISTINCT run_id FROM deliveries WHERE id = ANY(\(refused.filter { $0.device == nil }.map { String($0.id) })::bigint[])
                    """).map { try $0.decode(RunID.self, at: 0) }
                try ConfigurationPause().apply(runs: Set(deliveryRuns + refused.compactMap { $0.device?.batch.runID }), on: connection)
            }
            // In the same transaction: one commit a round, and a run is closed with its last answers.
            try closeRuns(Array(runIDs), on: connection)
        }
    }

    /// Writes the outcomes of deliveries `owner` still holds.
    private func recordDeliveries(_ outcomes: [Outcome], owner: String, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            UPDATE deliveries d SET status = x.status, message_name = nullif(x.name, ''),
                error_code = nullif(x.code, ''), error_message = nullif(x.message, ''),
                next_attempt_at = CASE WHEN x.delay = '' THEN d.next_attempt_at
                                       ELSE now() + make_interval(secs => x.delay::float8) END,
                sent_at = CASE WHEN x.status = \(constants: [DeliveryStatus.sent]) THEN now() ELSE d.sent_at END,
                sent_by = CASE WHEN x.status IN (\(constants: DeliveryStatus.answered)) THEN \(owner) ELSE d.sent_by END,
                lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
            FROM unnest(\(outcomes.map { String($0.id) }), \(outcomes.map(\.status.rawValue)), \(outcomes.map { $0.messageName ?? "" }),
                        \(outcomes.map { $0.errorCode ?? "" }), \(outcomes.map { $0.errorMessage ?? "" }),
                        \(outcomes.map { $0.retryDelay.map { String($0.seconds) } ?? "" }))
                 AS x(id, status, name, code, message, delay)
            WHERE d.id = x.id::bigint AND d.lease_owner = \(owner)
              -- A request that was in flight when the campaign was cancelled (or the run expired) still reached FCM.
              AND (d.status IN (\(constants: DeliveryStatus.open))
                   OR (d.status IN (\(constants: DeliveryStatus.dropped)) AND x.status = \(constants: [DeliveryStatus.sent])))
            """)
        // Token hygiene: a device FCM no longer knows is sent nothing again until it registers anew.
        let refused = outcomes.filter { $0.status == .failed && Self.meansInvalidToken($0) }
        if !refused.isEmpty {
            let invalidated = try connection.query("""
                UPDATE devices v SET status = \(constants: [DeviceStatus.invalid]), invalid_reason = d.error_code || ': ' || coalesce(d.error_message, ''), updated_at = now()
                FROM deliveries d
                WHERE d.id = ANY(\(refused.map { String($0.id) })::bigint[]) AND d.device_token = v.token AND v.status <> \(constants: [DeviceStatus.invalid])
                RETURNING v.token, v.kind, v.platform, v.app_id, v.invalid_reason
                """)
            try WebhookOutbox.enqueueInvalidatedDevices(invalidated, on: connection)
        }
    }

    /// Whether FCM's answer says the token itself is dead: UNREGISTERED (404), or an
    /// INVALID_ARGUMENT that names the registration token (not the message). SENDER_ID_MISMATCH
    /// says the credentials are wrong for the token, not that the device is gone: never pruned.
    static func meansInvalidToken(_ outcome: Outcome) -> Bool {
        switch outcome.errorCode {
        case "UNREGISTERED": true
        case "INVALID_ARGUMENT": outcome.errorMessage?.localizedCaseInsensitiveContains("registration token") ?? false
        default: false
        }
    }
}

extension StreamedRunStore {
    /// Writes a round's answers for the batches `owner` still holds: each batch is done, its
    /// counts added (planned for a first reading of a range), its failed devices kept with
    /// FCM's reason, the devices to try again batched for later. In the caller's transaction.
    func record(_ outcomes: [DeliveryStore.Outcome], owner: String, on connection: PostgresConnection) throws {
        let batchIDs = Array(Set(outcomes.compactMap { $0.device?.batch.id }))
        guard !batchIDs.isEmpty else { return }
        // A batch whose lease expired and was taken over is its new holder's to record.
        let held = Set(try connection.query("""
            UPDATE device_batches SET status = CASE WHEN status = \(constants: [DeliveryStatus.pending]) THEN \(DeliveryStatus.sent) ELSE status END,
                -- Its devices are no longer needed (each one's outcome is kept where it belongs): a
                -- done batch names nobody, and adds no entry to device_batches_tokens.
                lease_owner = NULL, lease_expires_at = NULL, tokens = NULL, variants = NULL
            WHERE id = ANY(\(batchIDs.map(String.init))::bigint[]) AND lease_owner = \(owner)
            RETURNING id
            """).map { try $0.decode(Int64.self, at: 0) })
        let mine = outcomes.filter { $0.device.map { held.contains($0.batch.id) } ?? false }
        guard !mine.isEmpty else { return }

        // The devices to try again, batched by how long FCM asked them to wait (a doubling of the
        // wait a batch: a device's 429 asks a minute, a 503's Retry-After two seconds, and neither
        // waits for the other), each batch after the longest wait of its devices; a run stopped
        // meanwhile (cancelled, expired) tries nothing again: they count as dropped.
        var dropped: [RunID: DeliveryStatus] = [:]
        let retrying = Dictionary(grouping: mine.filter { $0.status == .retrying }) { outcome in
            "\(outcome.device!.batch.id):\(Self.waitClass(outcome.retryDelay?.seconds ?? 1))"
        }
        for (_, outcomes) in retrying.sorted(by: { $0.key < $1.key }) {
            let batch = outcomes[0].device!.batch
            let delay = outcomes.compactMap { $0.retryDelay?.seconds }.max() ?? 1
            let written = try RunWriter().insertDevices(runID: batch.runID, tokens: outcomes.map { $0.device!.token },
                                                        variants: outcomes.map { $0.device!.variant }, attempts: batch.attempts,
                                                        after: delay, on: connection)
            if !written { dropped[batch.runID] = .cancelled }
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
}

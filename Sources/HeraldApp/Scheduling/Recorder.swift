import HeraldCore
import HeraldPostgres

/// The recorder: what FCM answered for a round, written in one transaction with the runs it
/// finished (streamed batches' counts and failures, request rows, token hygiene, the pause for
/// answers that concern every request).
extension DeliveryStore {
    /// Writes the outcomes of deliveries `owner` still holds (a lease taken over by another worker
    /// after expiry is theirs to record), then closes the runs that are finished.
    func record(_ outcomes: [Outcome], owner: String, runIDs: Set<String>, on connection: PostgresConnection) throws {
        guard !outcomes.isEmpty else { return }
        try connection.transaction { connection in
            try StreamedRunStore().record(outcomes, owner: owner, on: connection)
            let deliveries = outcomes.filter { $0.device == nil }
            if !deliveries.isEmpty { try recordDeliveries(deliveries, owner: owner, on: connection) }
            // Answers that say the configuration is wrong pause the run and wait for its resume.
            let refused = outcomes.filter { $0.status == .failed && ConfigurationPause.concerns($0.errorCode) }
            if !refused.isEmpty {
                let deliveryRuns = try connection.query("""
                    SELECT DISTINCT run_id::text FROM deliveries WHERE id = ANY(\(refused.filter { $0.device == nil }.map { String($0.id) })::bigint[])
                    """).map { try $0.decode(String.self, at: 0) }
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
                sent_at = CASE WHEN x.status = \(DeliveryStatus.sent) THEN now() ELSE d.sent_at END,
                sent_by = CASE WHEN x.status = ANY(\(DeliveryStatus.answered)) THEN \(owner) ELSE d.sent_by END,
                lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
            FROM unnest(\(outcomes.map { String($0.id) }), \(outcomes.map(\.status.rawValue)), \(outcomes.map { $0.messageName ?? "" }),
                        \(outcomes.map { $0.errorCode ?? "" }), \(outcomes.map { $0.errorMessage ?? "" }),
                        \(outcomes.map { $0.retryDelay.map { String($0.seconds) } ?? "" }))
                 AS x(id, status, name, code, message, delay)
            WHERE d.id = x.id::bigint AND d.lease_owner = \(owner)
              -- A request that was in flight when the campaign was cancelled (or the run expired) still reached FCM.
              AND (d.status = ANY(\(DeliveryStatus.open))
                   OR (d.status = ANY(\(DeliveryStatus.dropped)) AND x.status = \(DeliveryStatus.sent)))
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

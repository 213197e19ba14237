import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Writes a run to devices: the run row, then one delivery per device as the cursor over the
/// registry yields them (a batch at a time, one statement per batch), then its planned count.
/// Runs inside the scheduler's transaction, so the run appears to workers whole or not at all.
struct DeviceRunWriter: Sendable {
    let devices = DeviceStore()
    /// Devices fetched and deliveries written per statement.
    static let batch = 10_000

    /// Starts the run of `due` to `audience` with `planner`; nil when the occurrence has a run already.
    /// `expiresAt` and `window` are the campaign's delivery controls for this run (latest delivery, sending hours).
    func write(_ due: DeliveryStore.Due, audience: DeviceAudience, planner: DevicePlanner, rolloutVariant: String? = nil,
               expiresAt: Date? = nil, window: SendingWindow.Interval? = nil, on connection: PostgresConnection) throws -> DeliveryStore.StartedRun? {
        guard let runID = try connection.query("""
            INSERT INTO runs (campaign_id, occurrence, planned, per_device, rollout_variant, expires_at, window_opens_at, window_closes_at)
            VALUES (\(due.campaignID)::uuid, \(due.occurrenceText)::timestamptz, 0, true, \(rolloutVariant),
                    to_timestamp(nullif(\(DeliveryStore.epoch(expiresAt)), '')::float8),
                    to_timestamp(nullif(\(DeliveryStore.epoch(window?.opens)), '')::float8),
                    to_timestamp(nullif(\(DeliveryStore.epoch(window?.closes)), '')::float8))
            ON CONFLICT (campaign_id, occurrence) DO NOTHING RETURNING id::text
            """).first.map({ try $0.decode(String.self, at: 0) }) else { return nil }
        var planned = 0, unsendable = 0
        try devices.forEachActive(matching: audience, batch: Self.batch, on: connection) { batch in
            var variants: [String] = [], tokens: [String] = [], bodies: [String] = [], failures: [String] = []
            for device in batch {
                guard let request = planner.request(for: device.device) else { continue }
                variants.append(request.variantKey)
                tokens.append(request.token)
                bodies.append(request.body ?? "")
                failures.append(request.failure ?? "")
                if request.failure != nil { unsendable += 1 }
            }
            planned += tokens.count
            guard !tokens.isEmpty else { return }
            // A device whose message cannot be sent is recorded as failed at once, with the reason.
            _ = try connection.execute("""
                INSERT INTO deliveries (run_id, campaign_id, variant_key, target, body, device_token, status, error_code, error_message)
                SELECT \(runID)::uuid, \(due.campaignID)::uuid, v, jsonb_build_object('token', t), b, t,
                       CASE WHEN f = '' THEN \(DeliveryStatus.pending) ELSE \(DeliveryStatus.failed) END,
                       CASE WHEN f = '' THEN NULL ELSE 'PAYLOAD_TOO_LARGE' END, nullif(f, '')
                FROM unnest(\(variants), \(tokens), \(bodies), \(failures)) AS x(v, t, b, f)
                """)
        }
        var warnings: [String] = []
        if unsendable > 0 { warnings.append("\(unsendable) device\(unsendable == 1 ? "" : "s") could not be sent: the personalised message was over FCM's limit") }
        if planned == 0 { warnings.append("no active device is in the audience") }
        _ = try connection.execute("""
            UPDATE runs SET planned = \(planned), warnings = \(PostgresJSONB(JSON.array(warnings.map(JSON.string)).serializedString())) WHERE id = \(runID)::uuid
            """)
        return DeliveryStore.StartedRun(campaignID: due.campaignID, runID: runID, deliveries: planned)
    }
}

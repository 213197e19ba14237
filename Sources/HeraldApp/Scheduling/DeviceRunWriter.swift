import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldSync

/// Writes a run to devices: the run row, then one delivery per device as the cursor over the
/// registry yields them (a batch at a time, one statement per batch), then its planned count.
/// Runs inside the scheduler's transaction, so the run appears to workers whole or not at all.
struct DeviceRunWriter: Sendable {
    let devices = DeviceStore()
    /// Devices fetched and deliveries written per statement.
    static let batch = 10_000

    /// Starts the run of `due` to `audience` with `planner`; nil when the occurrence has a run already.
    /// `expiresAt` and `window` are the campaign's delivery controls for this run (latest delivery, sending hours);
    /// with `waves` (recipient time) each device's request falls due at its zone's wave instead of at once;
    /// with `spacing` (a spread) each falls due that many seconds after the one before it (in its wave).
    func write(_ due: DeliveryStore.Due, audience: DeviceAudience, planner: DevicePlanner, rolloutVariant: String? = nil,
               expiresAt: Date? = nil, window: SendingWindow.Interval? = nil, waves: RecipientWaves? = nil, spacing: Double? = nil,
               on connection: PostgresConnection) throws -> DeliveryStore.StartedRun? {
        guard let runID = try connection.query("""
            INSERT INTO runs (campaign_id, occurrence, planned, per_device, rollout_variant, campaign_version, expires_at, window_opens_at, window_closes_at)
            VALUES (\(due.campaignID)::uuid, \(due.occurrenceText)::timestamptz, 0, true, \(rolloutVariant), \(due.version),
                    to_timestamp(nullif(\(DeliveryStore.epoch(expiresAt)), '')::float8),
                    to_timestamp(nullif(\(DeliveryStore.epoch(window?.opens)), '')::float8),
                    to_timestamp(nullif(\(DeliveryStore.epoch(window?.closes)), '')::float8))
            ON CONFLICT (campaign_id, occurrence) DO NOTHING RETURNING id::text
            """).first.map({ try $0.decode(String.self, at: 0) }) else { return nil }
        let rows = RunRows(planner: planner, waves: waves, spacing: spacing, start: Date())
        func insert(_ batch: RunRows.Batch) throws {
            guard !batch.tokens.isEmpty else { return }
            _ = try connection.execute("""
                INSERT INTO deliveries (run_id, campaign_id, variant_key, target, body, device_token, status, error_code, error_message,
                                        next_attempt_at, send_at, expires_at)
                SELECT \(runID)::uuid, \(due.campaignID)::uuid, v, jsonb_build_object('token', t), b, t, st, nullif(c, ''), nullif(m, ''),
                       coalesce(to_timestamp(nullif(n, '')::float8), now()), to_timestamp(nullif(s, '')::float8), to_timestamp(nullif(e, '')::float8)
                FROM unnest(\(batch.variants), \(batch.tokens), \(batch.bodies), \(batch.statuses), \(batch.codes), \(batch.reasons),
                            \(batch.dues), \(batch.sendAts), \(batch.expiries))
                     AS x(v, t, b, st, c, m, n, s, e)
                """)
        }
        // Each batch is rendered on a thread of its own while the one before it is written: the
        // two take about as long, the one in Herald and the other in PostgreSQL, one core each.
        var written: RunRows.Batch?
        try devices.forEachActive(matching: audience, batch: Self.batch, on: connection) { devices in
            let previous = written
            written = try inParallel({ rows.render(devices) }, with: { if let previous { try insert(previous) } })
        }
        if let written { try insert(written) }
        let (planned, unsendable, missed, lastExpiry) = (rows.planned, rows.unsendable, rows.missed, rows.lastExpiry)
        // A large run changes what the planner should know of the outbox at once: with statistics
        // from before it (a few waiting requests), claims chose to read and sort all of its 100,000
        // each round (70 ms) instead of reading its first few in order (1 ms). Analysed inside
        // this transaction, its rows are counted, and the statistics land with the run.
        if planned >= Self.batch { _ = try connection.execute("ANALYZE deliveries") }
        var warnings: [String] = []
        if unsendable > 0 { warnings.append("\(unsendable) device\(unsendable == 1 ? "" : "s") could not be sent: the personalised message was over FCM's limit") }
        if missed > 0 { warnings.append("\(missed) device\(missed == 1 ? "" : "s") skipped: the local time had already passed in their time zone") }
        if planned == 0 { warnings.append("no active device is in the audience") }
        // With recipient time the run closes with its last wave's latest-delivery time.
        _ = try connection.execute("""
            UPDATE runs SET planned = \(planned), warnings = \(PostgresJSONB(JSON.array(warnings.map(JSON.string)).serializedString())),
                expires_at = coalesce(to_timestamp(nullif(\(DeliveryStore.epoch(lastExpiry)), '')::float8), expires_at)
            WHERE id = \(runID)::uuid
            """)
        return DeliveryStore.StartedRun(campaignID: due.campaignID, runID: runID, deliveries: planned)
    }
}

/// The deliveries of a run to devices, rendered a batch at a time, with the counts the run keeps.
/// Used by one thread at a time: `inParallel` hands it to a rendering thread and back.
final class RunRows: @unchecked Sendable {
    /// One batch's columns, as the INSERT binds them.
    struct Batch: Sendable {
        var variants: [String] = [], tokens: [String] = [], bodies: [String] = []
        var statuses: [String] = [], codes: [String] = [], reasons: [String] = []
        var dues: [String] = [], sendAts: [String] = [], expiries: [String] = []
    }

    let planner: DevicePlanner
    var waves: RecipientWaves?
    let spacing: Double?
    let start: Date
    private(set) var planned = 0, unsendable = 0, missed = 0
    private(set) var lastExpiry: Date?
    /// A spread counts requests per wave (one wave, the run's start, without recipient time).
    private var spreadIndex: [Date?: Int] = [:]

    init(planner: DevicePlanner, waves: RecipientWaves?, spacing: Double?, start: Date) {
        self.planner = planner
        self.waves = waves
        self.spacing = spacing
        self.start = start
    }

    func render(_ devices: [StoredDevice]) -> Batch {
        var batch = Batch()
        for device in devices {
            guard let request = planner.request(for: device.device) else { continue }
            var status = DeliveryStatus.pending, code = "", reason = ""
            if let failure = request.failure {
                // A device whose message cannot be sent is recorded as failed at once, with the reason.
                (status, code, reason) = (.failed, "PAYLOAD_TOO_LARGE", failure)
                unsendable += 1
            }
            switch waves?.slot(for: device.device.timeZone) {
            case nil:
                batch.dues.append(dueAt(nil))
                batch.sendAts.append("")
                batch.expiries.append("")
            case .due(let at, let expires):
                batch.dues.append(dueAt(at))
                batch.sendAts.append(DeliveryStore.epoch(at))
                batch.expiries.append(DeliveryStore.epoch(expires))
                if let expires, lastExpiry.map({ expires > $0 }) ?? true { lastExpiry = expires }
            case .missed(let at):
                // Its local time had passed and the campaign skips such devices: expired, never sent.
                batch.dues.append(DeliveryStore.epoch(at))
                batch.sendAts.append(DeliveryStore.epoch(at))
                batch.expiries.append("")
                if status == .pending {
                    (status, reason) = (.expired, DeliveryStore.missedWave)
                    missed += 1
                }
            }
            batch.variants.append(request.variantKey)
            batch.tokens.append(request.token)
            batch.bodies.append(request.body ?? "")
            batch.statuses.append(status.rawValue)
            batch.codes.append(code)
            batch.reasons.append(reason)
        }
        planned += batch.tokens.count
        return batch
    }

    /// When a request falls due: its wave, or with a spread that many spacings after its wave's first.
    private func dueAt(_ wave: Date?) -> String {
        guard let spacing else { return DeliveryStore.epoch(wave) }
        let index = spreadIndex[wave, default: 0]
        spreadIndex[wave] = index + 1
        return DeliveryStore.epoch((wave ?? start).addingTimeInterval(Double(index) * spacing))
    }
}

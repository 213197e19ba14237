import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Writes a run to devices while it sends: the run row with the campaign version and audience it
/// freezes, and its first chunk of deliveries, in the scheduler's transaction; then the rest a
/// chunk at a time (`planNextChunk`, each chunk its own transaction), in token order from the
/// position the run keeps. The first message leaves as soon as the first chunk commits, whatever
/// the audience's size; a crash resumes planning at the kept position.
struct DeviceRunWriter: Sendable {
    let devices = DeviceStore()
    /// Devices fetched and deliveries written per chunk (one statement each).
    static let batch = 10_000

    /// Starts the run of `due` to `audience`, or nil when the occurrence has a run already.
    /// `expiresAt` and `window` are the campaign's delivery controls for this run (latest delivery, sending hours);
    /// with `waves` (recipient time) each device's request falls due at its zone's wave instead of at once,
    /// and the whole run is planned now (its end is its last wave's, known only once every device is);
    /// with `spacing` (a spread) each falls due that many seconds after the one before it.
    func start(_ due: DeliveryStore.Due, audience: DeviceAudience, rolloutVariant: String? = nil, controlGroup: ControlGroup?,
               expiresAt: Date? = nil, window: SendingWindow.Interval? = nil, waves: RecipientWaves? = nil, spacing: Double? = nil,
               on connection: PostgresConnection) throws -> DeliveryStore.StartedRun? {
        guard let runID = try RunWriter().insert([NewRun(
            kind: .devicesPlanned, campaignID: due.campaignID, occurrence: due.occurrenceText, version: due.version, content: due.content,
            audience: audience, rolloutVariant: rolloutVariant, spacing: spacing, expiresAt: expiresAt, window: window, controlGroup: controlGroup,
        )], on: connection).first?.runID else { return nil }
        guard let run = try PlanningRun.locked(runID, waiting: true, on: connection) else { return nil }
        var planned = 0
        if let waves {
            // Recipient time: every device now, and the run ends with its last wave.
            let rows = RunRows(planner: run.planner, waves: waves, spacing: spacing, start: run.startedAt, alreadyPlanned: 0)
            var after: DeviceToken?
            while true {
                let chunk = try write(run, rows: rows, after: after, on: connection)
                planned += chunk.planned
                guard let last = chunk.lastToken else { break }
                after = last
            }
            try finish(run, planned: planned, unsendable: rows.unsendable, missed: rows.missed, lastExpiry: rows.lastExpiry, on: connection)
        } else {
            planned = try planNextChunk(run, on: connection)
        }
        return DeliveryStore.StartedRun(campaignID: due.campaignID, runID: runID, deliveries: planned)
    }

    /// Plans the next chunk of a run still planning, locked by the caller's transaction: writes
    /// its deliveries and moves the run's position past them (or ends its planning). Returns how
    /// many deliveries it wrote.
    @discardableResult
    func planNextChunk(_ run: PlanningRun, on connection: PostgresConnection) throws -> Int {
        let rows = RunRows(planner: run.planner, waves: nil, spacing: run.spacing, start: run.startedAt, alreadyPlanned: run.planned)
        let chunk = try write(run, rows: rows, after: run.after, on: connection)
        if let last = chunk.lastToken {
            _ = try connection.execute("""
                UPDATE runs SET plan_after = \(last), planned = planned + \(chunk.planned), unsendable = unsendable + \(rows.unsendable)
                WHERE id = \(run.id)::uuid
                """)
        } else {
            try finish(run, planned: run.planned + chunk.planned, unsendable: run.unsendable + rows.unsendable, missed: 0, lastExpiry: nil,
                       on: connection)
        }
        if chunk.planned > 0 { _ = try connection.query("SELECT pg_notify(\(DeliveryStore.deliveryChannel), '')") }
        return chunk.planned
    }

    /// One chunk: the next devices after `after` in token order, rendered and written. The last
    /// token is nil when the audience has no more devices (a short chunk is the last).
    private func write(_ run: PlanningRun, rows: RunRows, after: DeviceToken?, on connection: PostgresConnection) throws -> (planned: Int, lastToken: DeviceToken?) {
        let found = try devices.active(run.audience, after: after?.description, limit: Self.batch, on: connection)
        let batch = rows.render(found)
        try RunWriter().insertDeviceRequests(runID: run.id, campaignID: run.campaignID, batch, on: connection)
        // A large run changes what the planner should know of the outbox at once: with statistics
        // from before it (a few waiting requests), claims chose to read and sort all of its 100,000
        // each round (70 ms) instead of reading its first few in order (1 ms). Analysed inside
        // this transaction, its rows are counted, and the statistics land with its first chunk.
        if run.planned == 0, after == nil, batch.count >= Self.batch { _ = try connection.execute("ANALYZE deliveries") }
        return (batch.count, found.count < Self.batch ? nil : found.last.map { DeviceToken($0.device.token) })
    }

    /// Ends the run's planning: its planned count and warnings.
    private func finish(_ run: PlanningRun, planned: Int, unsendable: Int, missed: Int, lastExpiry: Date?, on connection: PostgresConnection) throws {
        var warnings: [String] = []
        if unsendable > 0 { warnings.append("\(unsendable) device\(unsendable == 1 ? "" : "s") could not be sent: the personalised message was over FCM's limit") }
        if missed > 0 { warnings.append("\(missed) device\(missed == 1 ? "" : "s") skipped: the local time had already passed in their time zone") }
        if planned == 0 { warnings.append("no active device is in the audience") }
        // With recipient time the run closes with its last wave's latest-delivery time.
        _ = try connection.execute("""
            UPDATE runs SET planned = \(planned), unsendable = \(unsendable), planning = false, plan_after = NULL,
                warnings = \(PostgresJSONB(JSON.array(warnings.map(JSON.string)).serializedString())),
                expires_at = coalesce(to_timestamp(nullif(\(DeliveryStore.epoch(lastExpiry)), '')::float8), expires_at)
            WHERE id = \(run.id)::uuid
            """)
    }
}

/// A run to devices still planning, as its row froze it: what the next chunk needs.
struct PlanningRun: Sendable {
    var id: RunID
    var campaignID: CampaignID
    var planner: DevicePlanner
    var audience: DeviceAudience
    /// The last device token planned; nil before the first chunk.
    var after: DeviceToken?
    var planned: Int
    var unsendable: Int
    var spacing: Double?
    var startedAt: Date

    /// The run, locked for this transaction (nil when it is not planning, or another transaction
    /// holds it and `waiting` is false). A run whose frozen content no longer parses ends its
    /// planning with what it planned.
    static func locked(_ id: RunID, waiting: Bool, on connection: PostgresConnection) throws -> PlanningRun? {
        let lock: PostgresQuery = waiting ? "FOR UPDATE" : "FOR UPDATE SKIP LOCKED"
        guard let row = try connection.query("""
            SELECT campaign_id, content::text, audience::text, rollout_variant, plan_after, planned, unsendable, spacing,
                   extract(epoch FROM occurrence)::float8 AS occurrence, extract(epoch FROM started_at)::float8 AS started_at,
                   control_basis_points, control_salt
            FROM runs WHERE id = \(id)::uuid AND planning AND kind = \(constants: [RunKind.devicesPlanned]) AND status = \(constants: [RunStatus.sending]) \(fragment: lock)
            """).first else { return nil }
        let (campaignID, content, audienceText, rollout, after, planned, unsendable, spacing, occurrence, started, basisPoints, salt) =
            try row.decode((CampaignID, String, String, String?, DeviceToken?, Int, Int, Double?, Double, Double, Int, String?).self, columns: "campaign_id", "content", "audience", "rollout_variant", "plan_after", "planned", "unsendable", "spacing", "occurrence", "started_at", "control_basis_points", "control_salt")
        guard let messages = RunMessages(campaignID: campaignID, content: content, audience: audienceText, rollout: rollout,
                                         controlGroup: RunMessages.controlGroup(basisPoints: basisPoints, salt: salt),
                                         sendTime: Date(timeIntervalSince1970: occurrence)) else {
            _ = try connection.execute("UPDATE runs SET planning = false WHERE id = \(id)::uuid")
            return nil
        }
        return PlanningRun(id: id, campaignID: campaignID, planner: messages.planner, audience: messages.audience, after: after, planned: planned,
                           unsendable: unsendable, spacing: spacing, startedAt: Date(timeIntervalSince1970: started))
    }

    /// Runs still planning that no other transaction holds, the earliest first.
    static func waiting(limit: Int, on connection: PostgresConnection) throws -> [RunID] {
        // A run stopped while planning (cancelled, expired, closed) plans no more.
        _ = try connection.execute("UPDATE runs SET planning = false WHERE planning AND status <> \(constants: [RunStatus.sending])")
        return try connection.query("SELECT id FROM runs WHERE planning AND kind = \(constants: [RunKind.devicesPlanned]) ORDER BY occurrence LIMIT \(limit)")
            .map { try $0.decode(RunID.self, at: 0) }
    }
}

/// The deliveries of a run to devices, rendered a batch at a time, with the counts the run keeps.
final class RunRows: @unchecked Sendable {
    let planner: DevicePlanner
    var waves: RecipientWaves?
    let spacing: Double?
    let start: Date
    private(set) var planned = 0, unsendable = 0, missed = 0
    private(set) var lastExpiry: Date?
    /// A spread counts requests per wave (one wave, the run's start, without recipient time).
    private var spreadIndex: [Date?: Int] = [:]

    /// `alreadyPlanned`: the run's requests written by earlier chunks, which a spread continues from.
    init(planner: DevicePlanner, waves: RecipientWaves?, spacing: Double?, start: Date, alreadyPlanned: Int) {
        self.planner = planner
        self.waves = waves
        self.spacing = spacing
        self.start = start
        if alreadyPlanned > 0 { spreadIndex[nil] = alreadyPlanned }
    }

    func render(_ devices: [StoredDevice]) -> [RequestRow] {
        var rows: [RequestRow] = []
        for device in devices {
            guard let request = planner.request(for: device.device) else { continue }
            var row = RequestRow(variant: request.variantKey, target: .device(token: DeviceToken(request.token), kind: device.device.kind), body: request.body ?? "")
            if let failure = request.failure {
                // A device whose message cannot be sent is recorded as failed at once, with the reason.
                (row.status, row.errorCode, row.reason) = (.failed, "PAYLOAD_TOO_LARGE", failure)
                unsendable += 1
            }
            switch waves?.slot(for: device.device.timeZone) {
            case nil:
                row.due = dueAt(nil)
            case .due(let at, let expires):
                (row.due, row.sendAt, row.expiresAt) = (dueAt(at), at, expires)
                if let expires, lastExpiry.map({ expires > $0 }) ?? true { lastExpiry = expires }
            case .missed(let at):
                // Its local time had passed and the campaign skips such devices: expired, never sent.
                (row.due, row.sendAt) = (at, at)
                if row.status == .pending {
                    (row.status, row.reason) = (.expired, DeliveryStore.missedWave)
                    missed += 1
                }
            }
            rows.append(row)
        }
        planned += rows.count
        return rows
    }

    /// When a request falls due: its wave, or with a spread that many spacings after its wave's
    /// first (nil: as soon as it is written).
    private func dueAt(_ wave: Date?) -> Date? {
        guard let spacing else { return wave }
        let index = spreadIndex[wave, default: 0]
        spreadIndex[wave] = index + 1
        return (wave ?? start).addingTimeInterval(Double(index) * spacing)
    }
}

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

    /// Extends the leases `owner` holds on these batches.
    func renew(_ ids: [Int64], owner: String, lease: Duration, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            UPDATE device_batches SET lease_expires_at = now() + make_interval(secs => \(lease.seconds))
            WHERE id = ANY(\(ids.map(String.init))::bigint[]) AND lease_owner = \(owner) AND status = \(constants: [DeliveryStatus.pending])
            """)
    }

    // MARK: - Stopping

    /// Drops the waiting batches of these runs (cancelled or expired): the devices of a batch to
    /// try again count as `status`; a range never recorded was never counted as planned.
    func drop(runs runIDs: [RunID]? = nil, campaign campaignID: CampaignID? = nil, as status: DeliveryStatus, on connection: PostgresConnection) throws {
        let dropped = try connection.query("""
            UPDATE device_batches SET status = \(status)
            -- A batch in flight is its worker's to record (what it sent reached FCM).
            WHERE status = \(constants: [DeliveryStatus.pending]) AND (lease_expires_at IS NULL OR lease_expires_at < now())
              AND (\(campaignID)::uuid IS NULL OR campaign_id = \(campaignID)::uuid)
              AND (\(runIDs)::uuid[] IS NULL OR run_id = ANY(\(runIDs)::uuid[]))
            RETURNING run_id, variants
            """).map { try $0.decode((RunID, [String]?).self, columns: "run_id", "variants") }
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
    var runID: RunID
    /// A first reading of a range of the audience: its devices count as planned when recorded
    /// (devices to try again were counted when first read).
    var counted: Bool
    var attempts: Int
}

/// The device a streamed request goes to.
struct StreamedDevice: Sendable, Equatable {
    var batch: StreamedBatch
    var token: DeviceToken
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
    /// `rolloutToAll`: the rollout variant goes to every device (a journey step's called winner),
    /// not only to the test's holdout (a campaign's).
    init?(campaignID: CampaignID, content: String, audience: String, rollout: String?, controlGroup: ControlGroup?, sendTime: Date = Date(),
          rolloutToAll: Bool = false) {
        guard let json = try? JSON.parse(content), case .success(let spec) = CampaignSpec.parse(json),
              let parsedAudience = (try? JSON.parse(audience)).flatMap(DeviceAudience.init(json:)) else { return nil }
        self.spec = spec
        planner = rollout.flatMap { variant in
            rolloutToAll ? DevicePlanner(only: variant, of: spec.forSending, campaignID: campaignID.description, sendTime: sendTime)
                : DevicePlanner(rollout: variant, of: spec.forSending, campaignID: campaignID.description, sendTime: sendTime)
        } ?? DevicePlanner(campaign: spec.forSending, campaignID: campaignID.description, sendTime: sendTime)
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
        return try SendRules.applyContactPolicy(rendered, tokens: rendered.map { $0.device?.token ?? DeviceToken("") }, layout: .range,
                                                contents: [batch.runID: spec], on: connection)
    }

    /// Each device's request; a device in the holdout gets none, and one whose message is over
    /// FCM's limit gets an empty body, which the engine records as failed without sending.
    func render(_ devices: [StoredDevice], batch: StreamedBatch, lateness: Double) -> [DeliveryStore.Claimed] {
        devices.compactMap { stored in
            guard let request = planner.request(for: stored.device) else { return nil }
            return DeliveryStore.Claimed(id: batch.id, runID: batch.runID, body: request.failure == nil ? Array((request.body ?? "").utf8) : [],
                                         attempts: batch.attempts, lateness: lateness,
                                         device: StreamedDevice(batch: batch, token: DeviceToken(request.token), variant: request.variantKey),
                                         failure: request.failure)
        }
    }
}

/// Counts to add to `run_counts`, keyed by run, variant and outcome, written in one statement
/// into this hour's row of this connection's shard.
struct RunCounts {
    static let planned = "planned"
    private var counts: [String: (run: RunID, variant: String, outcome: String, n: Int)] = [:]

    mutating func add(_ run: RunID, _ variant: String, _ outcome: String, _ n: Int = 1) {
        let key = run.description + "\u{0}" + variant + "\u{0}" + outcome
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

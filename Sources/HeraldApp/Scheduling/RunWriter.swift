import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// What kind of run it is: how its requests come to be. Stored as `runs.kind`, written once,
/// here; the claims and the progress read it by its cases (`\(constants:)` in their SQL, so the
/// partial indexes that name a kind serve them).
enum RunKind: String, Sendable, Equatable, CaseIterable {
    /// Topic or condition requests, written with the run.
    case fanOut = "fan_out"
    /// A row per device, planned a chunk at a time from the audience in token order.
    case devicesPlanned = "devices_planned"
    /// No row per device: the workers read the audience in token order as they send.
    case devicesStreamed = "devices_streamed"
    /// A one-call send's recipients (or a test send's), written with the run.
    case oneCall = "one_call"
    /// Its content could not be planned: it failed before it had a request.
    case unplanned
    /// A journey's send step: a request per device as each reaches the step, while the journey lives.
    case journey

    /// The kinds whose requests are to devices (a request row or a streamed batch per device).
    static let toDevices: [RunKind] = [.devicesPlanned, .devicesStreamed, .oneCall, .journey]
    /// Whether it starts still writing requests: reading its audience, or open to a journey's devices.
    var startsPlanning: Bool { self == .devicesPlanned || self == .devicesStreamed || self == .journey }
}

extension RunKind: PostgresEncodable, PostgresDecodable, PostgresArrayElement {}

/// A run to write: its kind, its campaign's occurrence and version, and what it freezes.
struct NewRun: Sendable {
    var kind: RunKind
    var campaignID: CampaignID
    /// The occurrence exactly as stored; nil: now, after the campaign's last run (one-call sends
    /// of one template within one clock tick must not collide on the unique occurrence).
    var occurrence: String?
    var version: Int
    var planned = 0
    var warnings: [String] = []
    /// The content it sends (a run to devices renders from it as it goes); nil when its requests are written with it.
    var content: JSON? = nil
    var audience: DeviceAudience? = nil
    var rolloutVariant: String? = nil
    /// Seconds between its requests (a spread or `max_per_minute`).
    var spacing: Double? = nil
    var expiresAt: Date? = nil
    var window: SendingWindow.Interval? = nil
    /// The project's control group as the run froze it (nil: none, or a transactional run).
    var controlGroup: ControlGroup? = nil
}

/// The one writer of runs and their requests: every kind of run is inserted here, and every
/// request row (`deliveries`) and streamed batch (`device_batches`) is written here, whatever
/// sends it.
struct RunWriter: Sendable {
    /// Writes `runs` in one statement, skipping an occurrence that has a run already; returns the
    /// runs written, by their campaign.
    func insert(_ runs: [NewRun], on connection: PostgresConnection) throws -> [(campaignID: CampaignID, runID: RunID)] {
        guard !runs.isEmpty else { return [] }
        return try connection.query("""
            INSERT INTO runs (campaign_id, occurrence, planned, warnings, kind, planning, rollout_variant, campaign_version,
                              content, audience, spacing, expires_at, window_opens_at, window_closes_at, control_basis_points, control_salt)
            SELECT x.c::uuid,
                   coalesce(nullif(x.o, '')::timestamptz,
                            greatest(clock_timestamp(), (SELECT max(occurrence) + interval '1 microsecond' FROM runs WHERE campaign_id = x.c::uuid))),
                   x.p::integer, x.w::jsonb, x.k, x.pl::boolean, nullif(x.rv, ''), x.v::integer,
                   nullif(x.ct, '')::jsonb, nullif(x.au, '')::jsonb, nullif(x.sp, '')::float8,
                   to_timestamp(nullif(x.e, '')::float8), to_timestamp(nullif(x.wo, '')::float8), to_timestamp(nullif(x.wc, '')::float8),
                   x.cb::integer, nullif(x.cs, '')
            FROM unnest(\(runs.map(\.campaignID)), \(runs.map { $0.occurrence ?? "" }), \(runs.map { String($0.planned) }),
                        \(runs.map { JSON.array($0.warnings.map(JSON.string)).serializedString() }),
                        \(runs.map(\.kind)), \(runs.map { $0.kind.startsPlanning ? "true" : "false" }),
                        \(runs.map { $0.rolloutVariant ?? "" }), \(runs.map { String($0.version) }),
                        \(runs.map { $0.content?.serializedString() ?? "" }), \(runs.map { $0.audience?.json.serializedString() ?? "" }),
                        \(runs.map { $0.spacing.map { String($0) } ?? "" }), \(runs.map { DeliveryStore.epoch($0.expiresAt) }),
                        \(runs.map { DeliveryStore.epoch($0.window?.opens) }), \(runs.map { DeliveryStore.epoch($0.window?.closes) }),
                        \(runs.map { String($0.controlGroup?.basisPoints ?? 0) }), \(runs.map { $0.controlGroup?.salt ?? "" }))
                 AS x(c, o, p, w, k, pl, rv, v, ct, au, sp, e, wo, wc, cb, cs)
            ON CONFLICT (campaign_id, occurrence) DO NOTHING RETURNING campaign_id, id
            """).map { try $0.decode((CampaignID, RunID).self, columns: "campaign_id", "id") }
    }

    /// Writes a failed run, with its reason, for each due campaign whose content cannot be planned.
    func insertFailed(_ campaigns: [(due: DeliveryStore.Due, reason: String)], on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            INSERT INTO runs (campaign_id, occurrence, planned, warnings, kind, status, finished_at, campaign_version)
            SELECT c::uuid, o::timestamptz, 0, jsonb_build_array(w), \(RunKind.unplanned), \(RunStatus.failed), now(), v::integer
            FROM unnest(\(campaigns.map(\.due.campaignID)), \(campaigns.map(\.due.occurrenceText)), \(campaigns.map(\.reason)),
                        \(campaigns.map { String($0.due.version) })) AS x(c, o, w, v)
            ON CONFLICT (campaign_id, occurrence) DO NOTHING
            """)
    }

    /// Writes runs to topics and conditions with their requests (planned in Swift by `RunStarter`
    /// or a winner's rollout; one statement per table for the whole batch: round trips, not
    /// planning, were what limited the scheduler) and moves each campaign on, to its next
    /// occurrence or to `sending`. An occurrence that already has a run gets no second one.
    func writeFanOuts(_ runs: [DeliveryStore.PlannedRun], on connection: PostgresConnection) throws -> [DeliveryStore.StartedRun] {
        guard !runs.isEmpty else { return [] }
        let created = try insert(runs.map { run in
            NewRun(kind: .fanOut, campaignID: run.campaignID, occurrence: run.occurrenceText, version: run.version, planned: run.plan.requests.count,
                   warnings: run.plan.warnings, rolloutVariant: run.rolloutVariant, expiresAt: run.expiresAt ?? DeliveryStore.lastExpiry(run.slots),
                   window: run.window)
        }, on: connection)
        let byCampaign = Dictionary(runs.map { ($0.campaignID, $0) }, uniquingKeysWith: { first, _ in first })
        var rows: [(run: RunID, campaign: CampaignID, row: RequestRow)] = []
        var started: [DeliveryStore.StartedRun] = []
        for (campaign, run) in created {
            let planned = byCampaign[campaign]!
            for (index, request) in planned.plan.requests.enumerated() {
                // A spread campaign's requests fall due one spacing apart.
                var row = RequestRow(variant: request.variantKey, target: .fanOut(request.target.json), body: request.message.json().serializedString(),
                                     delay: Double(index) * (planned.spacing ?? 0))
                // At recipient time each request waits for its zone's wave; one whose wave had passed is expired.
                switch planned.slots?[index] {
                case nil: break
                case .due(let at, let expires): (row.due, row.sendAt, row.expiresAt) = (at, at, expires)
                case .missed(let at): (row.status, row.reason, row.due, row.sendAt) = (.expired, DeliveryStore.missedWave, at, at)
                }
                rows.append((run, campaign, row))
            }
            started.append(DeliveryStore.StartedRun(campaignID: campaign, runID: run, deliveries: planned.plan.requests.count))
        }
        if !rows.isEmpty {
            _ = try connection.execute("""
                INSERT INTO deliveries (run_id, campaign_id, variant_key, target, body, status, error_message, next_attempt_at, send_at, expires_at)
                SELECT r::uuid, c::uuid, v, t::jsonb, b, s, nullif(m, ''),
                       coalesce(to_timestamp(nullif(n, '')::float8), now() + make_interval(secs => o::float8)),
                       to_timestamp(nullif(a, '')::float8), to_timestamp(nullif(e, '')::float8)
                FROM unnest(\(rows.map(\.run)), \(rows.map(\.campaign)), \(rows.map(\.row.variant)), \(rows.map(\.row.targetJSON)),
                            \(rows.map(\.row.body)), \(rows.map { String($0.row.delay) }), \(rows.map(\.row.status.rawValue)),
                            \(rows.map { $0.row.reason ?? "" }), \(rows.map { DeliveryStore.epoch($0.row.due) }),
                            \(rows.map { DeliveryStore.epoch($0.row.sendAt) }), \(rows.map { DeliveryStore.epoch($0.row.expiresAt) }))
                     AS x(r, c, v, t, b, o, s, m, n, a, e)
                """)
        }
        try DeliveryStore().advance(runs.map { ($0.campaignID, $0.nextRun) }, started: started, on: connection)
        return started
    }

    /// Starts a one-call send's run with a request per recipient (`requests`: rendered, with how
    /// each device is addressed), and wakes the workers. Nothing to send (each over FCM's limit)
    /// closes the run at once.
    /// - Parameter apiKeyID: the key that made the send, which alone reads it when of the `sends` scope.
    func startOneCall(campaignID: CampaignID, version: Int, content: JSON, requests: [(request: DeviceRequest, kind: DeviceKind)],
                      madeBy apiKeyID: APIKeyID?, on connection: PostgresConnection) throws -> RunID {
        guard let written = try insert([NewRun(kind: .oneCall, campaignID: campaignID, occurrence: nil, version: version,
                                               planned: requests.count, content: content)], on: connection).first else {
            throw AppError.unavailable("The send's run could not be written; try again.")
        }
        let runID = written.runID
        if let apiKeyID { _ = try connection.execute("UPDATE runs SET api_key_id = \(apiKeyID.description)::uuid WHERE id = \(runID)::uuid") }
        let rows = requests.map { request, kind in
            RequestRow(variant: request.variantKey, target: .device(token: DeviceToken(request.token), kind: kind), body: request.body ?? "",
                       status: request.failure == nil ? .pending : .failed, reason: request.failure)
        }
        try insertDeviceRequests(runID: written.runID, campaignID: campaignID, rows, on: connection)
        if !requests.isEmpty { _ = try connection.query("SELECT pg_notify(\(DeliveryStore.deliveryChannel), '')") }
        if requests.allSatisfy({ $0.request.failure != nil }) { try DeliveryStore().closeRuns([written.runID], on: connection) }
        return runID
    }

    /// Writes one request row per device of `rows` (a planned run's chunk, a one-call send's recipients).
    func insertDeviceRequests(runID: RunID, campaignID: CampaignID, _ rows: [RequestRow], on connection: PostgresConnection) throws {
        guard !rows.isEmpty else { return }
        _ = try connection.execute("""
            INSERT INTO deliveries (run_id, campaign_id, variant_key, target, body, device_token, status, error_code, error_message,
                                    next_attempt_at, send_at, expires_at)
            SELECT \(runID)::uuid, \(campaignID)::uuid, v, t::jsonb, b, nullif(d, ''), st, nullif(c, ''), nullif(m, ''),
                   coalesce(to_timestamp(nullif(n, '')::float8), now()), to_timestamp(nullif(s, '')::float8), to_timestamp(nullif(e, '')::float8)
            FROM unnest(\(rows.map(\.variant)), \(rows.map(\.targetJSON)), \(rows.map { $0.token?.description ?? "" }), \(rows.map(\.body)),
                        \(rows.map(\.status.rawValue)), \(rows.map { $0.errorCode ?? "" }), \(rows.map { $0.reason ?? "" }),
                        \(rows.map { DeliveryStore.epoch($0.due) }), \(rows.map { DeliveryStore.epoch($0.sendAt) }),
                        \(rows.map { DeliveryStore.epoch($0.expiresAt) }))
                 AS x(v, t, d, b, st, c, m, n, s, e)
            """)
    }

    // MARK: - A streamed run's batches

    /// A claim's next range of a streamed run (the devices after `after` through `last`), leased
    /// to `owner` as it is written; returns its id.
    func insertRange(runID: RunID, campaignID: CampaignID, after: DeviceToken?, last: DeviceToken, devices: Int, owner: String, lease: Duration,
                     on connection: PostgresConnection) throws -> Int64 {
        try connection.query("""
            INSERT INTO device_batches (run_id, campaign_id, after_token, last_token, devices, attempts, lease_owner, lease_expires_at)
            VALUES (\(runID)::uuid, \(campaignID)::uuid, \(after), \(last), \(devices), 1, \(owner),
                    now() + make_interval(secs => \(lease.seconds)))
            RETURNING id
            """).first?.decode(Int64.self, at: 0) ?? 0
    }

    /// Devices of a streamed run to send (again) after `delay` seconds, named one by one with
    /// their variants; false when the run no longer sends (cancelled, expired), and nothing is written.
    func insertDevices(runID: RunID, tokens: [DeviceToken], variants: [String], attempts: Int, after delay: Double,
                       on connection: PostgresConnection) throws -> Bool {
        try !connection.query("""
            INSERT INTO device_batches (run_id, campaign_id, tokens, variants, devices, attempts, next_attempt_at)
            SELECT id, campaign_id, \(tokens), \(variants), \(tokens.count), \(attempts), now() + make_interval(secs => \(delay))
            FROM runs WHERE id = \(runID)::uuid AND status = \(constants: [RunStatus.sending])
            RETURNING id
            """).isEmpty
    }

    /// A journey step's devices, first sent: batches of `batchDevices` (the smallest round a
    /// worker claims, so any worker may take one), with no variants written (a claim renders each
    /// device's message by the run's planner, and counts the batch's devices as planned when
    /// recorded, as a first reading of a range). In token order, so that each batch spans a
    /// narrow range of tokens: the caps read a round's history by the range it overlaps.
    func insertFirstDevices(runID: RunID, campaignID: CampaignID, tokens: [DeviceToken], on connection: PostgresConnection) throws {
        guard !tokens.isEmpty else { return }
        _ = try connection.execute("""
            INSERT INTO device_batches (run_id, campaign_id, tokens, devices, attempts, next_attempt_at)
            SELECT \(runID)::uuid, \(campaignID)::uuid, array_agg(t ORDER BY t), count(*), 0, now()
            FROM (SELECT t, (row_number() OVER (ORDER BY t) - 1) / \(Self.batchDevices) AS chunk FROM unnest(\(tokens)) AS x(t)) AS numbered
            GROUP BY chunk
            """)
    }

    /// The devices of a batch written one by one: a worker's smallest round.
    static let batchDevices = 32

    /// The devices of a streamed run that FCM refused with one of `codes` (its failures), batched
    /// again by 32, the smallest round a worker claims, so that any worker may take one; their
    /// failures are deleted. Returns the variants of the devices batched.
    func insertRefusedAgain(runID: RunID, codes: [String], on connection: PostgresConnection) throws -> [String] {
        try connection.query("""
            WITH refused AS (
                DELETE FROM delivery_failures WHERE run_id = \(runID)::uuid AND error_code = ANY(\(codes))
                RETURNING campaign_id, device_token, variant_key, attempts
            ), numbered AS (
                SELECT *, (row_number() OVER (ORDER BY device_token) - 1) / \(Self.batchDevices) AS chunk FROM refused
            )
            INSERT INTO device_batches (run_id, campaign_id, tokens, variants, devices, attempts, next_attempt_at)
            SELECT \(runID)::uuid, (array_agg(campaign_id))[1], array_agg(device_token ORDER BY device_token),
                   array_agg(variant_key ORDER BY device_token), count(*), max(attempts), now()
            FROM numbered GROUP BY chunk
            RETURNING variants
            """).flatMap { try $0.decode([String].self, column: "variants") }
    }
}

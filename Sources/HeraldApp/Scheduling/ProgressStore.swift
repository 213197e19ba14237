import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Reads of a campaign's runs and deliveries, for the progress API and the report page.
struct ProgressStore: Sendable {
    /// Runs newest first, each with per-variant counts of deliveries by state.
    func runs(campaignID: CampaignID, on connection: PostgresConnection) throws -> [RunProgress] {
        let rows = try connection.query("""
            SELECT r.id::text, r.status,
                   -- A streamed run counts what it planned as it goes; its row has the total once it ends.
                   CASE WHEN r.kind = \(constants: [RunKind.devicesStreamed]) AND r.status = \(constants: [RunStatus.sending])
                        THEN (SELECT coalesce(sum(n), 0) FROM run_counts c WHERE c.run_id = r.id AND c.outcome = \(RunCounts.planned))::integer
                        ELSE r.planned END AS planned,
                   r.warnings::text AS warnings, r.rollout_variant, r.campaign_version, r.occurrence, r.started_at, r.finished_at,
                   coalesce((SELECT json_object_agg(variant_key, counts)::text FROM (
                       SELECT variant_key, json_build_object(
                           'planned', count(*),
                           \(DeliveryStatus.sent), count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.sent])),
                           \(DeliveryStatus.failed), count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.failed])),
                           \(DeliveryStatus.retrying), count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.retrying])),
                           \(DeliveryStatus.pending), count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.pending])),
                           \(DeliveryStatus.cancelled), count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.cancelled])),
                           \(DeliveryStatus.expired), count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.expired])),
                           \(DeliveryStatus.capped), count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.capped]))) AS counts
                       -- A folded run's requests are detail: its counts are its counters'.
                       FROM deliveries WHERE run_id = r.id AND NOT r.folded GROUP BY variant_key) v),
                       -- A streamed or folded run's counts; what is neither answered, waiting again nor dropped is in flight.
                       (SELECT json_object_agg(variant_key, json_build_object(
                           'planned', planned, \(DeliveryStatus.sent), sent, \(DeliveryStatus.failed), failed,
                           \(DeliveryStatus.retrying), retrying, \(DeliveryStatus.cancelled), cancelled, \(DeliveryStatus.expired), expired,
                           \(DeliveryStatus.capped), capped,
                           \(DeliveryStatus.pending), planned - sent - failed - retrying - cancelled - expired - capped))::text
                        FROM (SELECT variant_key, \(fragment: Self.countColumns) FROM run_counts WHERE run_id = r.id GROUP BY variant_key) c),
                       '{}') AS variants,
                   r.expires_at, r.window_opens_at, r.window_closes_at,
                   -- Its place in the project's queue of topic fan-outs (one at a time): the open
                   -- runs with fan-outs still to send that are ahead of it.
                   CASE WHEN r.status = \(constants: [RunStatus.sending]) THEN (
                       SELECT count(*) FROM runs q WHERE q.status = \(constants: [RunStatus.sending]) AND (q.occurrence, q.id) < (r.occurrence, r.id)
                         AND EXISTS (SELECT 1 FROM deliveries f WHERE f.run_id = q.id AND f.status IN (\(constants: DeliveryStatus.open))
                                     AND NOT (f.target ? 'token'))) END AS ahead,
                   -- Recipient time: the run's waves, one per local-time instant, with what each sent and still waits.
                   (SELECT json_agg(json_build_object('at', \(utc: "w.at"), 'devices', w.devices,
                                                      \(DeliveryStatus.sent), w.sent, 'waiting', w.waiting, \(DeliveryStatus.expired), w.expired)
                                    ORDER BY w.at)::text
                    FROM (SELECT send_at AS at, count(*) AS devices, count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.sent])) AS sent,
                                 count(*) FILTER (WHERE status IN (\(constants: DeliveryStatus.open))) AS waiting,
                                 count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.expired])) AS expired
                          FROM deliveries WHERE run_id = r.id AND send_at IS NOT NULL GROUP BY send_at) w) AS waves
            FROM runs r WHERE r.campaign_id = \(campaignID)::uuid ORDER BY r.occurrence DESC LIMIT 100
            """)
        return try rows.map { row in
            let (id, status, planned, warnings, rollout, version, due, started, finished, variants, expires, opens, closes, ahead, waves) =
                try row.decode((RunID, RunStatus, Int, String, String?, Int?, Date, Date, Date?, String, Date?, Date?, Date?, Int?, String?).self, columns: "id", "status", "planned", "warnings", "rollout_variant", "campaign_version", "occurrence", "started_at", "finished_at", "variants", "expires_at", "window_opens_at", "window_closes_at", "ahead", "waves")
            return RunProgress(
                id: id, status: status, planned: planned,
                warnings: (try JSON.parse(warnings).arrayValue ?? []).compactMap(\.stringValue),
                dueAt: due, startedAt: started, finishedAt: finished,
                variants: (try JSON.parse(variants).objectValue ?? [:]).members.sorted { $0.key < $1.key }.map { key, counts in
                    func count(_ name: String) -> Int { counts[name]?.intValue ?? 0 }
                    return RunProgress.Variant(key: key, counts: RunProgress.Counts(
                        planned: count("planned"), sent: count(DeliveryStatus.sent.rawValue), failed: count(DeliveryStatus.failed.rawValue),
                        retrying: count(DeliveryStatus.retrying.rawValue), pending: count(DeliveryStatus.pending.rawValue),
                        cancelled: count(DeliveryStatus.cancelled.rawValue), expired: count(DeliveryStatus.expired.rawValue),
                        capped: count(DeliveryStatus.capped.rawValue)))
                },
                rolloutVariant: rollout, campaignVersion: version, expiresAt: expires,
                // The stretch of sending hours it sends in now or waits for, while it sends.
                window: status == .sending ? opens.flatMap { opens in closes.map { RunProgress.Window(opensAt: opens, closesAt: $0) } } : nil,
                fanOutQueueAhead: ahead,
                waves: try waves.map { text in
                    (try JSON.parse(text).arrayValue ?? []).map { wave in
                        func count(_ name: String) -> Int { wave[name]?.intValue ?? 0 }
                        return RunProgress.Wave(at: Date(timeIntervalSince1970: RFC3339.secondsSince1970(wave["at"]?.stringValue ?? "") ?? 0),
                                                devices: count("devices"), sent: count(DeliveryStatus.sent.rawValue),
                                                waiting: count("waiting"), expired: count(DeliveryStatus.expired.rawValue))
                    }
                })
        }
    }

    /// Requests planned, sent and failed per variant over every run of the campaign (the runs
    /// list shows the last 100; a recurring campaign or a template of one-call sends has more).
    func variantTotals(campaignID: CampaignID, on connection: PostgresConnection) throws -> [String: VariantTotals] {
        let rows = try connection.query("""
            SELECT v.variant_key, sum(v.planned)::bigint AS planned, sum(v.sent)::bigint AS sent, sum(v.failed)::bigint AS failed,
                   sum(v.capped)::bigint AS capped
            FROM runs r CROSS JOIN LATERAL (
                SELECT variant_key, count(*) AS planned, count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.sent])) AS sent,
                       count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.failed])) AS failed,
                       count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.capped])) AS capped
                FROM deliveries WHERE run_id = r.id AND NOT r.folded GROUP BY variant_key
                UNION ALL
                SELECT variant_key, planned, sent, failed, capped FROM (
                    SELECT variant_key, \(fragment: Self.countColumns) FROM run_counts WHERE run_id = r.id GROUP BY variant_key) c
            ) v
            WHERE r.campaign_id = \(campaignID)::uuid
            GROUP BY v.variant_key
            """)
        return try rows.reduce(into: [:]) { totals, row in
            let (key, planned, sent, failed, capped) = try row.decode((String, Int, Int, Int, Int).self, columns: "variant_key", "planned", "sent", "failed", "capped")
            totals[key] = VariantTotals(planned: planned, sent: sent, failed: failed, capped: capped)
        }
    }

    /// A variant's requests over every run.
    struct VariantTotals: Sendable {
        var planned: Int, sent: Int, failed: Int
        /// Stopped by a frequency cap: neither sent nor failed.
        var capped: Int
    }

    /// Each outcome's sum in a group of `run_counts` rows.
    static let countColumns: PostgresQuery = """
        coalesce(sum(n) FILTER (WHERE outcome = 'planned'), 0) AS planned,
        coalesce(sum(n) FILTER (WHERE outcome = \(constants: [DeliveryStatus.sent])), 0) AS sent,
        coalesce(sum(n) FILTER (WHERE outcome = \(constants: [DeliveryStatus.failed])), 0) AS failed,
        coalesce(sum(n) FILTER (WHERE outcome = \(constants: [DeliveryStatus.retrying])), 0) AS retrying,
        coalesce(sum(n) FILTER (WHERE outcome = \(constants: [DeliveryStatus.cancelled])), 0) AS cancelled,
        coalesce(sum(n) FILTER (WHERE outcome = \(constants: [DeliveryStatus.expired])), 0) AS expired,
        coalesce(sum(n) FILTER (WHERE outcome = \(constants: [DeliveryStatus.capped])), 0) AS capped
        """

    /// Deliveries in id order after `afterID`, optionally of one status; a streamed run's devices
    /// are listed when they failed (its counts are the runs'), as deliveries to one token.
    func deliveries(campaignID: CampaignID, status: DeliveryStatus?, afterID: Int64, limit: Int, on connection: PostgresConnection) throws -> [DeliveryRecord] {
        let rows = try connection.query("""
            SELECT * FROM (
                SELECT id, run_id, variant_key, target::text, status, attempts, message_name, error_code, error_message, sent_at, next_attempt_at
                FROM deliveries
                WHERE campaign_id = \(campaignID)::uuid AND id > \(afterID) AND (\(status)::text IS NULL OR status = \(status))
                UNION ALL
                SELECT id, run_id, variant_key, jsonb_build_object('token', device_token)::text, \(DeliveryStatus.failed), attempts, NULL,
                       error_code, error_message, NULL, failed_at
                FROM delivery_failures
                WHERE campaign_id = \(campaignID)::uuid AND id > \(afterID) AND (\(status)::text IS NULL OR \(status) = \(DeliveryStatus.failed))
            ) AS listed
            ORDER BY id LIMIT \(limit)
            """)
        return try rows.map { row in
            let (id, runID, variant, target, status, attempts, name, code, message, sent, nextAttempt) =
                try row.decode((Int64, RunID, String, String, DeliveryStatus, Int, String?, String?, String?, Date?, Date).self, columns: "id", "run_id", "variant_key", "target", "status", "attempts", "message_name", "error_code", "error_message", "sent_at", "next_attempt_at")
            return DeliveryRecord(id: id, runID: runID, variant: variant, target: try Self.target(target), status: status, attempts: attempts,
                                  messageName: name, error: code.map { DeliveryRecord.Refusal(code: $0, message: message ?? "") },
                                  sentAt: sent, nextAttemptAt: DeliveryStatus.open.contains(status) ? nextAttempt : nil)
        }
    }

    /// A one-call send as it stands: its run and each request's outcome; nil when there is no such run.
    /// - Parameter maker: when given, only a send that key made.
    func send(_ runID: RunID, madeBy maker: APIKeyID? = nil, on connection: PostgresConnection) throws -> SendProgress? {
        guard let run = try connection.query("""
            SELECT campaign_id, status, planned, api_key_id::text FROM runs WHERE id = \(runID)::uuid
            """).first else { return nil }
        if let maker, try run.decode(String?.self, column: "api_key_id") != maker.description { return nil }
        let (campaignID, status, planned) = try run.decode((CampaignID, RunStatus, Int).self, columns: "campaign_id", "status", "planned")
        let requests = try connection.query("""
            SELECT target::text, variant_key, status, error_code, error_message, message_name, attempts FROM deliveries
            WHERE run_id = \(runID)::uuid ORDER BY id
            """).map { row in
            let (target, variant, status, code, message, name, attempts) = try row.decode((String, String, DeliveryStatus, String?, String?, String?, Int).self, columns: "target", "variant_key", "status", "error_code", "error_message", "message_name", "attempts")
            return SendProgress.Request(target: try Self.target(target), variant: variant, status: status, attempts: attempts,
                                        errorCode: code, error: message, messageName: name)
        }
        return SendProgress(id: runID, campaignID: campaignID, status: status, planned: planned, requests: requests)
    }

    /// A request's target as its row keeps it: one member, `{"token": …}`, `{"fid": …}`,
    /// `{"topic": …}` or `{"condition": …}`.
    static func target(_ text: String) throws -> DeliveryRecord.Target {
        let object = try JSON.parse(text).objectValue ?? [:]
        if let token = object["token"]?.stringValue { return .token(token) }
        if let fid = object["fid"]?.stringValue { return .fid(fid) }
        if let topic = object["topic"]?.stringValue { return .topic(topic) }
        if let condition = object["condition"]?.stringValue { return .condition(condition) }
        throw PostgresError(kind: .misuse, message: "a delivery's target is none of token, fid, topic and condition: \(text)")
    }

    /// The campaign's hours (UTC) from its first answered request or event to its last, at most
    /// the last `maximumHours`, each with its answered requests and reported events; hours with
    /// nothing in them are listed too, so a chart's axis is time, not rows.
    func hours(campaignID: CampaignID, maximumHours: Int = 14 * 24, on connection: PostgresConnection) throws -> [CampaignReport.Hour] {
        try connection.query("""
            WITH answered AS (
                SELECT date_trunc('hour', coalesce(sent_at, updated_at) AT TIME ZONE 'UTC') AS h,
                       count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.sent])) AS sent,
                       count(*) FILTER (WHERE status = \(constants: [DeliveryStatus.failed])) AS failed
                FROM deliveries WHERE campaign_id = \(campaignID)::uuid AND status IN (\(constants: DeliveryStatus.answered))
                  AND run_id NOT IN (SELECT id FROM runs WHERE campaign_id = \(campaignID)::uuid AND folded) GROUP BY 1
                UNION ALL
                -- Streamed and folded runs, by their counters (the hour each outcome was recorded).
                SELECT c.hour AT TIME ZONE 'UTC', coalesce(sum(c.n) FILTER (WHERE c.outcome = \(DeliveryStatus.sent)), 0),
                       coalesce(sum(c.n) FILTER (WHERE c.outcome = \(DeliveryStatus.failed)), 0)
                FROM runs r JOIN run_counts c ON c.run_id = r.id WHERE r.campaign_id = \(campaignID)::uuid GROUP BY 1),
            d AS (SELECT h, sum(sent) AS sent, sum(failed) AS failed FROM answered GROUP BY h),
            e AS (
                SELECT date_trunc('hour', occurred_at AT TIME ZONE 'UTC') AS h,
                       count(*) FILTER (WHERE type = \(constants: [EventType.open])) AS opens, count(*) FILTER (WHERE type = \(constants: [EventType.conversion])) AS conversions
                FROM events WHERE campaign_id = \(campaignID)::uuid GROUP BY 1),
            span AS (
                SELECT greatest(min(h), max(h) - make_interval(hours => \(maximumHours - 1)::integer)) AS first, max(h) AS last
                FROM (SELECT h FROM d UNION SELECT h FROM e) AS b)
            SELECT to_char(g, 'YYYY-MM-DD"T"HH24:00:00"Z"') AS hour, coalesce(d.sent, 0) AS sent, coalesce(d.failed, 0) AS failed,
                   coalesce(e.opens, 0) AS opens, coalesce(e.conversions, 0) AS conversions
            FROM span, generate_series(span.first, span.last, interval '1 hour') AS g
            LEFT JOIN d ON d.h = g LEFT JOIN e ON e.h = g
            ORDER BY g
            """).map { row in
            let (start, sent, failed, opens, conversions) = try row.decode((String, Int, Int, Int, Int).self, columns: "hour", "sent", "failed", "opens", "conversions")
            return CampaignReport.Hour(start: start, requestsSent: sent, requestsFailed: failed, opens: opens, conversions: conversions)
        }
    }

    /// For the list: per campaign, when its last run finished and its requests sent and failed,
    /// in one query over the runs' index (campaigns that never ran are absent).
    func summaries(campaignIDs: [CampaignID], on connection: PostgresConnection) throws -> [CampaignID: CampaignSummary] {
        guard !campaignIDs.isEmpty else { return [:] }
        let rows = try connection.query("""
            SELECT r.campaign_id::text, max(r.finished_at) AS finished_at,
                   sum((SELECT count(*) FROM deliveries d WHERE d.run_id = r.id AND NOT r.folded AND d.status = \(constants: [DeliveryStatus.sent]))
                       + (SELECT coalesce(sum(n), 0) FROM run_counts c WHERE c.run_id = r.id AND c.outcome = \(DeliveryStatus.sent)))::bigint AS sent,
                   sum((SELECT count(*) FROM deliveries d WHERE d.run_id = r.id AND NOT r.folded AND d.status = \(constants: [DeliveryStatus.failed]))
                       + (SELECT coalesce(sum(n), 0) FROM run_counts c WHERE c.run_id = r.id AND c.outcome = \(DeliveryStatus.failed)))::bigint AS failed
            FROM runs r
            WHERE r.campaign_id = ANY(\(campaignIDs.map(\.description))::uuid[])
            GROUP BY r.campaign_id
            """)
        var summaries: [CampaignID: CampaignSummary] = [:]
        for row in rows {
            let (id, finishedAt, sent, failed) = try row.decode((CampaignID, Date?, Int, Int).self, columns: "campaign_id", "finished_at", "sent", "failed")
            summaries[id] = CampaignSummary(lastFinishedAt: finishedAt, requestsSent: sent, requestsFailed: failed)
        }
        // Opens and conversions as the report counts them (`EventStore.counts`): per device where
        // events name one, per event otherwise.
        let events = try connection.query("""
            SELECT campaign_id::text, count(DISTINCT coalesce('device:' || device_token, 'event:' || id)) FILTER (WHERE type = \(constants: [EventType.open])) AS opens,
                   count(DISTINCT coalesce('device:' || device_token, 'event:' || id)) FILTER (WHERE type = \(constants: [EventType.conversion])) AS conversions
            FROM events WHERE campaign_id = ANY(\(campaignIDs.map(\.description))::uuid[]) GROUP BY campaign_id
            """)
        for row in events {
            let (id, opens, conversions) = try row.decode((CampaignID, Int, Int).self, columns: "campaign_id", "opens", "conversions")
            summaries[id, default: CampaignSummary(lastFinishedAt: nil, requestsSent: 0, requestsFailed: 0)].opens = opens
            summaries[id]?.conversions = conversions
        }
        return summaries
    }

    /// Devices a campaign to devices reached and failed, and how many of them are invalid now.
    func deviceReach(campaignID: CampaignID, on connection: PostgresConnection) throws -> CampaignReport.DeviceReach {
        // A run to devices reaches each device once: the sent and failed counts of a streamed or
        // folded one are its devices reached and failed. Which failed devices are invalid now
        // is read from the detail, kept for the retention period.
        let row = try connection.query("""
            WITH folded AS (SELECT id FROM runs WHERE campaign_id = \(campaignID.description)::uuid AND folded)
            SELECT (SELECT count(DISTINCT d.device_token) FROM deliveries d
                    WHERE d.campaign_id = \(campaignID.description)::uuid AND d.device_token IS NOT NULL AND d.status = \(constants: [DeliveryStatus.sent])
                      AND d.run_id NOT IN (SELECT id FROM folded))
                   + (SELECT coalesce(sum(c.n), 0) FROM runs r JOIN run_counts c ON c.run_id = r.id
                      WHERE r.campaign_id = \(campaignID.description)::uuid AND r.kind IN (\(constants: RunKind.toDevices)) AND c.outcome = \(DeliveryStatus.sent))::bigint AS reached,
                   (SELECT count(DISTINCT d.device_token) FROM deliveries d
                    WHERE d.campaign_id = \(campaignID.description)::uuid AND d.device_token IS NOT NULL AND d.status = \(constants: [DeliveryStatus.failed])
                      AND d.run_id NOT IN (SELECT id FROM folded))
                   + (SELECT coalesce(sum(c.n), 0) FROM runs r JOIN run_counts c ON c.run_id = r.id
                      WHERE r.campaign_id = \(campaignID.description)::uuid AND r.kind IN (\(constants: RunKind.toDevices)) AND c.outcome = \(DeliveryStatus.failed))::bigint AS failed,
                   (SELECT count(DISTINCT t) FROM (
                       SELECT device_token AS t FROM deliveries WHERE campaign_id = \(campaignID.description)::uuid AND device_token IS NOT NULL
                       UNION SELECT device_token FROM delivery_failures WHERE campaign_id = \(campaignID.description)::uuid) AS f
                    JOIN devices v ON v.token = f.t AND v.status = \(constants: [DeviceStatus.invalid])) AS now_invalid
            """).first
        return CampaignReport.DeviceReach(reached: try row?.decode(Int.self, column: "reached") ?? 0, failed: try row?.decode(Int.self, column: "failed") ?? 0,
                                          nowInvalid: try row?.decode(Int.self, column: "now_invalid") ?? 0)
    }
}

/// What the campaign list says of a campaign's sending so far.
public struct CampaignSummary: Sendable, Equatable {
    /// When its last run finished, if one has.
    public var lastFinishedAt: Date?
    public var requestsSent: Int
    public var requestsFailed: Int
    public var opens = 0
    public var conversions = 0
}

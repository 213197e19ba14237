import Foundation
import HeraldCore
import HeraldPostgres

/// The SQL of A/B events (opens and conversions). Recording is idempotent by the client's event id.
struct EventStore: Sendable {
    /// One reported event, already checked.
    struct Event: Sendable, Equatable {
        var id: EventID
        /// Nil for the app's own events (an app open, a purchase), which no campaign caused:
        /// the control group's comparison reads them.
        var campaignID: String?
        var variant: String?
        var type: EventType
        /// RFC 3339; nil means "now".
        var occurredAt: String?
        /// The device it happened on, when the app says.
        var deviceToken: String? = nil
    }


    init() {}

    /// Records the events; an id already recorded is skipped. Answers how many were new.
    func record(_ events: [Event], on connection: PostgresConnection) throws -> Int {
        var inserted = 0
        for event in events {
            inserted += try connection.execute("""
                INSERT INTO events (id, campaign_id, variant, type, occurred_at, device_token)
                VALUES (\(event.id), \(event.campaignID)::uuid, \(event.variant), \(event.type),
                        coalesce(\(event.occurredAt)::timestamptz, now()), \(event.deviceToken))
                ON CONFLICT (id) DO NOTHING
                """)
        }
        return inserted
    }

    /// Events in the order they were recorded: after the cursor `after` (a `seq`), else from
    /// `since`; only those recorded more than `settle` seconds ago, so that a transaction still
    /// committing cannot land behind a cursor already handed out.
    func export(after: Int64?, since: String?, limit: Int, settle: Double, on connection: PostgresConnection) throws -> [ExportedEvent] {
        try connection.query("""
            SELECT seq, id, campaign_id::text, variant, type, device_token, occurred_at, received_at FROM events
            WHERE seq > \(after ?? 0) AND (\(since)::timestamptz IS NULL OR received_at >= \(since)::timestamptz)
              AND received_at < now() - make_interval(secs => \(settle))
            ORDER BY seq LIMIT \(limit)
            """).map { row in
            let (seq, id, campaign, variant, type, device, occurred, received) =
                try row.decode((Int64, EventID, CampaignID?, String?, EventType, String?, Date, Date).self, columns: "seq", "id", "campaign_id", "variant", "type", "device_token", "occurred_at", "received_at")
            return ExportedEvent(sequence: seq, id: id, campaignID: campaign, variant: variant, type: type, deviceToken: device,
                                 occurredAt: occurred, receivedAt: received)
        }
    }

    /// The stored content of each of these campaigns that exists, by id.
    func contents(of ids: Set<String>, on connection: PostgresConnection) throws -> [String: String] {
        let rows = try connection.query("SELECT id::text, content::text FROM campaigns WHERE id = ANY(\(Array(ids))::uuid[])")
        return Dictionary(uniqueKeysWithValues: try rows.map { try $0.decode((String, String).self, columns: "id", "content") })
    }

    /// Opens and conversions per variant key: per device where events name one (a device that
    /// opens twice is one open), per event otherwise.
    func counts(campaignID: String, on connection: PostgresConnection) throws -> [String: EventCounts] {
        let rows = try connection.query("""
            SELECT variant, count(DISTINCT coalesce('device:' || device_token, 'event:' || id)) FILTER (WHERE type = \(constants: [EventType.open])) AS opens,
                   count(DISTINCT coalesce('device:' || device_token, 'event:' || id)) FILTER (WHERE type = \(constants: [EventType.conversion])) AS conversions
            FROM events WHERE campaign_id = \(campaignID)::uuid GROUP BY variant
            """)
        var result: [String: EventCounts] = [:]
        for row in rows {
            let (variant, opens, conversions) = try row.decode((String, Int, Int).self, columns: "variant", "opens", "conversions")
            result[variant] = EventCounts(opens: opens, conversions: conversions)
        }
        return result
    }
}

/// Opens and conversions of one variant.
struct EventCounts: Sendable, Equatable {
    var opens = 0
    var conversions = 0

    init(opens: Int = 0, conversions: Int = 0) {
        self.opens = opens
        self.conversions = conversions
    }
}

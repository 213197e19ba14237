import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Writes events for the endpoints that listen to them, on the connection (and so in the
/// transaction) of the change they report: an event exists exactly when its change committed.
/// The dispatcher posts them later; nothing here waits for a receiver.
enum WebhookOutbox {
    static let channel = "herald_webhooks"

    struct Event {
        var type: WebhookEventType
        var data: JSONObject
    }

    static func enqueue(_ type: WebhookEventType, _ data: JSONObject, on connection: PostgresConnection) throws {
        try enqueue([Event(type: type, data: data)], on: connection)
    }

    /// One delivery per event and listening endpoint, in the order given; wakes the dispatchers.
    static func enqueue(_ events: [Event], on connection: PostgresConnection) throws {
        guard !events.isEmpty else { return }
        let now = RFC3339.utc(secondsSince1970: Date().timeIntervalSince1970)
        let ids = events.map { _ in UUID().uuidString.lowercased() }
        let bodies = zip(ids, events).map { id, event -> String in
            JSON.object(["id": .string(id), "type": .string(event.type.rawValue), "created_at": .string(now),
                         "data": .object(event.data)]).serializedString()
        }
        let written = try connection.execute("""
            INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, body)
            SELECT w.id, e.id::uuid, e.type, e.body
            FROM unnest(\(ids), \(events.map(\.type.rawValue)), \(bodies)) WITH ORDINALITY AS e(id, type, body, n)
            JOIN webhooks w ON e.type = ANY(w.events)
            ORDER BY e.n, w.id
            """)
        if written > 0 { _ = try connection.query("SELECT pg_notify(\(channel), '')") }
    }

    /// Events about campaigns, each with the campaign as receivers read it (id, name, status,
    /// version) beside its own `extra` members. Looks nothing up when no endpoint exists.
    static func enqueueCampaignEvents(_ items: [(type: WebhookEventType, campaignID: CampaignID, extra: JSONObject)],
                                      on connection: PostgresConnection) throws {
        guard !items.isEmpty else { return }
        let campaigns = try connection.query("""
            SELECT id, name, status, version FROM campaigns
            WHERE id = ANY(\(items.map(\.campaignID))::uuid[]) AND EXISTS (SELECT 1 FROM webhooks)
            """).reduce(into: [CampaignID: JSON]()) { found, row in
            let (id, name, status, version) = try row.decode((CampaignID, String, String, Int).self, columns: "id", "name", "status", "version")
            found[id] = ["id": .string(id.description), "name": .string(name), "status": .string(status), "version": .number(Double(version))]
        }
        guard !campaigns.isEmpty else { return }
        try enqueue(items.compactMap { item in
            campaigns[item.campaignID].map { campaign in
                var data: JSONObject = ["campaign": campaign]
                for (key, value) in item.extra { data[key] = value }
                return Event(type: item.type, data: data)
            }
        }, on: connection)
    }

    /// Whether any endpoint listens for `type`.
    static func isListened(_ type: WebhookEventType, on connection: PostgresConnection) throws -> Bool {
        try connection.query("SELECT 1 FROM webhooks WHERE \(type.rawValue) = ANY(events) LIMIT 1").first != nil
    }

    /// A journey's events, one per device (`extra` beside the journey and the device), when an
    /// endpoint listens for `type`: a million entrants write nothing when none does.
    static func enqueueJourneyEvents(_ type: WebhookEventType, _ items: [(journeyID: JourneyID, version: Int, token: String, extra: JSONObject)],
                                     on connection: PostgresConnection) throws {
        guard !items.isEmpty, try isListened(type, on: connection) else { return }
        let names = try connection.query("SELECT id, name FROM journeys WHERE id = ANY(\(Array(Set(items.map(\.journeyID))))::uuid[])")
            .reduce(into: [JourneyID: String]()) { names, row in
                let (id, name) = try row.decode((JourneyID, String).self, columns: "id", "name")
                names[id] = name
            }
        try enqueue(items.map { item in
            var data: JSONObject = ["journey": ["id": .string(item.journeyID.description), "name": .string(names[item.journeyID] ?? ""),
                                                "version": .number(Double(item.version))],
                                    "device": ["token": .string(item.token)]]
            for (key, value) in item.extra { data[key] = value }
            return Event(type: type, data: data)
        }, on: connection)
    }

    /// `device.invalidated` for each device FCM refused (token, platform, why), as returned by
    /// an `UPDATE devices … RETURNING token, kind, platform, app_id, invalid_reason`.
    static func enqueueInvalidatedDevices(_ rows: PostgresRows, on connection: PostgresConnection) throws {
        try enqueue(rows.map { row in
            let (token, kind, platform, app, reason) = try row.decode((String, String, String, String?, String?).self, columns: "token", "kind", "platform", "app_id", "invalid_reason")
            return Event(type: .deviceInvalidated, data: ["device": [
                kind == "fid" ? "fid" : "token": .string(token), "platform": .string(platform),
                "app_id": app.map(JSON.string) ?? .null, "reason": reason.map(JSON.string) ?? .null,
            ]])
        }, on: connection)
    }
}

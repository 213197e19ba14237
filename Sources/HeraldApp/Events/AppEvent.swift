import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// What a user did, as the app or its backend reports it: `{"id", "event", "device", "properties",
/// "time"}`. Journeys start, wait and end on these; they are kept by device and name.
public struct AppEvent: Sendable, Equatable {
    public var id: EventID
    public var name: String
    public var device: DeviceToken
    /// The event's own values (a plan, an amount), kept as sent.
    public var properties: JSONObject
    /// RFC 3339; nil means now.
    public var time: String?

    static let fields: Set<String> = ["id", "event", "device", "properties", "time"]
    /// The most a single event's properties may hold, serialized.
    static let maximumPropertyBytes = 8192

    /// The event of `object`, every problem reported under `prefix` (`events[2].`).
    static func parse(_ object: JSONObject, at prefix: String, reader: inout JSONReader) -> AppEvent? {
        for key in object.keys where !fields.contains(key) {
            reader.report(prefix + key, "unknown_field", "unknown field \"\(key)\"; an app event has \(fields.sorted().joined(separator: ", "))")
        }
        let id = object["id"]?.stringValue.flatMap(EventID.init)
        if id == nil {
            reader.report(prefix + "id", "required", "id is the event's own unique id, 1 to \(EventID.maximumCharacters) characters", limit: EventID.maximumCharacters)
        }
        let name = object["event"]?.stringValue
        if name.map(JourneyDefinition.isEventName) != true {
            reader.report(prefix + "event", "invalid_value",
                          "event is the event's name, 1 to \(JourneyDefinition.eventNameCharacters) letters, digits, _, -, . and : (such as \"signed_up\")",
                          limit: JourneyDefinition.eventNameCharacters)
        }
        let device = object["device"]?.stringValue
        if device.map({ RegistrationToken.problem($0) == nil }) != true {
            reader.report(prefix + "device", "invalid_token", "device is the registration token (or FID) of the device it happened on: letters, digits, -, _ and : only")
        }
        var properties = JSONObject()
        if let value = object["properties"], value != .null {
            if case .object(let members) = value {
                properties = members
                if value.serializedString().utf8.count > maximumPropertyBytes {
                    reader.report(prefix + "properties", "too_long", "an event's properties are at most \(maximumPropertyBytes) bytes of JSON", limit: maximumPropertyBytes)
                }
            } else {
                reader.report(prefix + "properties", "wrong_type", "properties is a JSON object of the event's values")
            }
        }
        var time: String?
        if let value = object["time"], value != .null {
            if let text = value.stringValue, RFC3339.isStorable(text) { time = text } else {
                reader.report(prefix + "time", "invalid_value", "time is an RFC 3339 time such as \"2026-11-22T09:30:00Z\", when it happened; leave it out for now")
            }
        }
        guard let id, let name, let device, JourneyDefinition.isEventName(name), RegistrationToken.problem(device) == nil else { return nil }
        return AppEvent(id: id, name: name, device: DeviceToken(device), properties: properties, time: time)
    }
}

/// The SQL of app events.
struct AppEventStore: Sendable {
    /// Records the events in one statement; an id already recorded is skipped. Answers the new ones.
    func record(_ events: [AppEvent], on connection: PostgresConnection) throws -> [AppEvent] {
        guard !events.isEmpty else { return [] }
        let inserted = try connection.query("""
            INSERT INTO app_events (id, device_token, name, properties, occurred_at)
            SELECT i, d, n, p::jsonb, coalesce(nullif(t, '')::timestamptz, now())
            FROM unnest(\(events.map(\.id.description)), \(events.map(\.device.description)), \(events.map(\.name)),
                        \(events.map { JSON.object($0.properties).serializedString() }), \(events.map { $0.time ?? "" })) AS x(i, d, n, p, t)
            ON CONFLICT (id) DO NOTHING
            RETURNING id
            """).map { try $0.decode(String.self, at: 0) }
        let new = Set(inserted)
        // A batch naming one id twice keeps the first.
        var seen: Set<String> = []
        return events.filter { new.contains($0.id.description) && seen.insert($0.id.description).inserted }
    }

    /// Forgets a device's events (an erasure).
    func forget(_ token: String, on connection: PostgresConnection) throws {
        _ = try connection.execute("DELETE FROM app_events WHERE device_token = \(token)")
    }
}

import FCMMessage
import Foundation
import HeraldFCM
import HeraldJSON
import HeraldPostgres

/// What FCM delivered, summed over days and apps for a set of labels.
public struct DeliveryFigures: Sendable, Equatable {
    /// Messages FCM accepted for Android devices that share usage data.
    public var accepted = 0
    public var notifications = 0
    /// Every figure FCM gives, as counts (from its percents of the messages or notifications
    /// accepted), by group and FCM's name.
    public var counts: [FCMDeliveryFigureGroup: [String: Int]] = [:]
    /// The first and last day FCM reported them on ("YYYY-MM-DD").
    public var firstDay: String?
    public var lastDay: String?

    public init() {}

    /// A figure's count; 0 when FCM never gave it.
    public func count(_ group: FCMDeliveryFigureGroup, _ figure: String) -> Int { counts[group]?[figure] ?? 0 }

    mutating func add(day: String, accepted: Int, notifications: Int, percents: [FCMDeliveryFigureGroup: [String: Double]]) {
        self.accepted += accepted
        self.notifications += notifications
        for (group, figures) in percents {
            let of = Double(group.ofNotifications ? notifications : accepted)
            for (figure, percent) in figures { counts[group, default: [:]][figure, default: 0] += Int((of * percent / 100).rounded()) }
        }
        firstDay = min(firstDay ?? day, day)
        lastDay = max(lastDay ?? day, day)
    }
}

/// `delivery_data`: the FCM Data API's rows, kept by day, app and label.
struct DeliveryDataStore: Sendable {
    /// Each row's percents as FCM gave them (`percents`: every group, as FCM names them;
    /// `outcomes`: the outcomes alone, which instances from before migration 0039 read).
    func upsert(_ rows: [AndroidDeliveryRow], on connection: PostgresConnection) throws {
        guard !rows.isEmpty else { return }
        func object(_ percents: [String: Double]) -> JSON {
            .object(JSONObject(percents.sorted { $0.key < $1.key }.map { ($0.key, JSON.number($0.value)) }))
        }
        _ = try connection.execute("""
            INSERT INTO delivery_data (day, app_id, label, accepted, notifications, outcomes, percents)
            SELECT d::date, a, l, n::bigint, m::bigint, o::jsonb, p::jsonb
            FROM unnest(\(rows.map(\.day)), \(rows.map(\.appID)), \(rows.map(\.label)), \(rows.map { String($0.accepted) }),
                        \(rows.map { String($0.notificationsAccepted) }),
                        \(rows.map { object($0.percents[.messageOutcomePercents] ?? [:]).serializedString() }),
                        \(rows.map { row in
                            JSON.object(JSONObject(row.percents.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key.rawValue, object($0.value)) }))
                                .serializedString()
                        }))
                 AS x(d, a, l, n, m, o, p)
            ON CONFLICT (day, app_id, label) DO UPDATE SET accepted = excluded.accepted, notifications = excluded.notifications,
                outcomes = excluded.outcomes, percents = excluded.percents, fetched_at = now()
            """)
    }

    /// The figures of each of `labels` that FCM reported, summed over days and apps.
    func figures(labels: [String], on connection: PostgresConnection) throws -> [String: DeliveryFigures] {
        guard !labels.isEmpty else { return [:] }
        var figures: [String: DeliveryFigures] = [:]
        for row in try connection.query("""
            SELECT label, to_char(day, 'YYYY-MM-DD') AS day, accepted, notifications, percents::text FROM delivery_data WHERE label = ANY(\(labels))
            """) {
            let (label, day, accepted, notifications, text) = try row.decode((String, String, Int, Int, String).self, columns: "label", "day", "accepted", "notifications", "percents")
            var percents: [FCMDeliveryFigureGroup: [String: Double]] = [:]
            for (name, values) in (try? JSON.parse(text))?.objectValue ?? [:] {
                guard let group = FCMDeliveryFigureGroup(rawValue: name) else { continue }
                for (figure, value) in values.objectValue ?? [:] { percents[group, default: [:]][figure] = value.doubleValue ?? 0 }
            }
            figures[label, default: DeliveryFigures()].add(day: day, accepted: accepted, notifications: notifications, percents: percents)
        }
        return figures
    }

    /// When the Data API was last read, if ever.
    func lastFetched(on connection: PostgresConnection) throws -> Date? {
        try connection.query("SELECT max(fetched_at) FROM delivery_data").first?.decode(Date?.self, at: 0)
    }

    /// The Android app ids devices registered with (for a project that names none).
    func registeredAndroidApps(on connection: PostgresConnection) throws -> [String] {
        try connection.query("""
            SELECT DISTINCT app_id FROM devices WHERE platform = 'android' AND app_id IS NOT NULL ORDER BY app_id LIMIT 100
            """).map { try $0.decode(String.self, at: 0) }
    }
}

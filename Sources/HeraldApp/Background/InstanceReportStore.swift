import Foundation
import HeraldJSON
import HeraldPostgres

/// `background_instances`: each instance's background services as it last reported them, and
/// the leader lease, read together by `herald doctor`.
struct InstanceReportStore: Sendable {
    /// One instance as the database last heard of it.
    struct Instance: Sendable, Equatable {
        var owner: String
        var startedAt: Date
        var secondsSinceSeen: Double
        var stopped: Bool
        var services: [BackgroundService.State]
    }

    func write(owner: String, startedAt: Date, services: [BackgroundService.State], on connection: PostgresConnection) throws {
        let json = JSON.array(services.map(Self.json)).serializedString()
        _ = try connection.execute("""
            INSERT INTO background_instances (owner, started_at, seen_at, services) VALUES (\(owner), \(startedAt), now(), \(json)::jsonb)
            ON CONFLICT (owner) DO UPDATE SET seen_at = now(), stopped_at = NULL, services = EXCLUDED.services
            """)
    }

    func stopped(owner: String, on connection: PostgresConnection) throws {
        _ = try connection.execute("UPDATE background_instances SET stopped_at = now() WHERE owner = \(owner)")
    }

    func dropUnseen(forDays days: Int, on connection: PostgresConnection) throws {
        _ = try connection.execute("DELETE FROM background_instances WHERE seen_at < now() - make_interval(days => \(days)::integer)")
    }

    /// Every instance seen within `seconds`, newest first.
    func seen(withinSeconds seconds: Double, on connection: PostgresConnection) throws -> [Instance] {
        try connection.query("""
            SELECT owner, started_at, extract(epoch FROM now() - seen_at)::float8 AS ago, stopped_at IS NOT NULL AS stopped, services::text AS services
              FROM background_instances WHERE seen_at > now() - make_interval(secs => \(seconds)) ORDER BY seen_at DESC
            """).map { row in
            let (owner, started, ago, stopped, services) = try row.decode((String, Date, Double, Bool, String).self,
                                                                          columns: "owner", "started_at", "ago", "stopped", "services")
            return Instance(owner: owner, startedAt: started, secondsSinceSeen: ago, stopped: stopped,
                            services: (try JSON.parse(services)).arrayValue?.compactMap(Self.state) ?? [])
        }
    }

    static func json(_ state: BackgroundService.State) -> JSON {
        [
            "name": .string(state.name), "scope": .string(state.scope.rawValue), "interval_seconds": .number(state.intervalSeconds),
            "threads": .number(Double(state.threads)), "steps": .number(Double(state.steps)), "errors": .number(Double(state.errors)),
            "last_started": state.lastStarted.map { .number($0.timeIntervalSince1970) } ?? .null,
            "last_duration_seconds": state.lastDurationSeconds.map { .number($0) } ?? .null,
            "last_error": state.lastError.map { .string($0) } ?? .null, "last_failed": .bool(state.lastFailed),
            "waiting_for_leader": .bool(state.waitingForLeadership),
        ]
    }

    static func state(_ json: JSON) -> BackgroundService.State? {
        guard let name = json["name"]?.stringValue, let scope = json["scope"]?.stringValue.flatMap(BackgroundService.Scope.init(rawValue:)) else {
            return nil
        }
        var state = BackgroundService.State(name: name, scope: scope, intervalSeconds: json["interval_seconds"]?.doubleValue ?? 0,
                                            threads: json["threads"]?.intValue ?? 1)
        state.steps = json["steps"]?.intValue ?? 0
        state.errors = json["errors"]?.intValue ?? 0
        state.lastStarted = json["last_started"]?.doubleValue.map(Date.init(timeIntervalSince1970:))
        state.lastDurationSeconds = json["last_duration_seconds"]?.doubleValue
        state.lastError = json["last_error"]?.stringValue
        state.lastFailed = json["last_failed"]?.boolValue ?? false
        state.waitingForLeadership = json["waiting_for_leader"]?.boolValue ?? false
        return state
    }
}

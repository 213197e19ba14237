import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// The SQL of the device registry.
struct DeviceStore: Sendable {
    /// The condition of active devices, as a constant for SQL built as text: the partial indexes
    /// over active devices serve only a statement that spells their predicate's status.
    static let active = "status = '\(DeviceStatus.active.rawValue)'"

    /// The columns a `StoredDevice` is read from, in `decode`'s order.
    static let columns: PostgresQuery = """
        token, platform, app_id, app_version, language, country, time_zone, properties::text AS properties,
        last_seen_at, registered_at, status, invalid_reason, kind, bucket_key,
        quiet_categories, live_activity_token
        """
    /// `columns` by name, in order: `devices(_:)` checks them once per result and reads each row by position.
    static let columnNames = ["token", "platform", "app_id", "app_version", "language", "country", "time_zone", "properties",
                              "last_seen_at", "registered_at", "status", "invalid_reason", "kind", "bucket_key", "quiet_categories",
                              "live_activity_token"]

    /// Registers or updates devices in one statement (each a new registration: an invalid or
    /// stale device becomes active again). Returns how many were new. A token given twice is
    /// stored as its last row says, as if the rows were sent one by one.
    @discardableResult
    func upsert(_ devices: [Device], on connection: PostgresConnection) throws -> Int {
        guard let statement = Self.upsertStatement(devices) else { return 0 }
        return try upsert(statement, on: connection)
    }

    /// Runs a statement of `upsertStatement`; returns how many devices were new.
    func upsert(_ statement: PostgresQuery, on connection: PostgresConnection) throws -> Int {
        try connection.query(statement).filter { try $0.decode(Bool.self, at: 0) }.count
    }

    /// The statement `upsert` runs for `devices` (nil for none), built apart from running it: an
    /// import builds the next batch's while PostgreSQL runs the last one.
    static func upsertStatement(_ devices: [Device]) -> PostgresQuery? {
        guard !devices.isEmpty else { return nil }
        // ON CONFLICT DO UPDATE refuses a statement that would change one row twice.
        let devices = Device.lastOfEachToken(devices)
        func column(_ value: (Device) -> String?) -> [String] { devices.map { value($0) ?? "" } }
        return """
            INSERT INTO devices AS d (token, kind, platform, app_id, app_version, app_version_key, language, country, time_zone, properties, last_seen_at,
                                     quiet_categories, live_activity_token)
            SELECT t, kd, p, nullif(a, ''), nullif(v, ''), nullif(k, '')::integer[], nullif(l, ''), nullif(c, ''), nullif(z, ''), j::jsonb,
                   coalesce(nullif(s, '')::timestamptz, now()), q::text[], nullif(la, '')
            FROM unnest(\(column(\.token)), \(column(\.kind.rawValue)), \(column(\.platform.rawValue)), \(column(\.appID)), \(column(\.appVersion)),
                        \(column { $0.appVersion.flatMap(AppVersion.key).map { "{" + $0.map(String.init).joined(separator: ",") + "}" } }),
                        \(column(\.language)), \(column(\.country)), \(column(\.timeZone)),
                        \(column { Self.propertiesJSON($0.properties) }), \(column { $0.lastSeen.map { RFC3339.utc(secondsSince1970: $0.timeIntervalSince1970) } }),
                        \(column { "{" + $0.quietCategories.joined(separator: ",") + "}" }), \(column(\.liveActivityToken)))
                 AS x(t, kd, p, a, v, k, l, c, z, j, s, q, la)
            ON CONFLICT (token) DO UPDATE SET kind = excluded.kind, platform = excluded.platform, app_id = excluded.app_id, app_version = excluded.app_version,
                app_version_key = excluded.app_version_key, language = excluded.language, country = excluded.country,
                time_zone = excluded.time_zone, properties = excluded.properties, quiet_categories = excluded.quiet_categories,
                live_activity_token = excluded.live_activity_token,
                last_seen_at = greatest(d.last_seen_at, excluded.last_seen_at), status = \(constants: [DeviceStatus.active]), invalid_reason = NULL, updated_at = now()
            RETURNING (xmax = 0)
            """
    }

    /// The device with `token`; `locking` holds its row for the caller's transaction.
    func get(_ token: String, on connection: PostgresConnection, locking: Bool = false) throws -> StoredDevice? {
        let lock: PostgresQuery = locking ? "FOR UPDATE" : ""
        return try connection.query("SELECT \(fragment: Self.columns) FROM devices WHERE token = \(token) \(fragment: lock)").devices().first
    }

    /// The device `token` names: registered by it, or moved from it to its FID (as a campaign's
    /// list of tokens reads it, `bucket_key`).
    func named(by token: String, on connection: PostgresConnection) throws -> StoredDevice? {
        try connection.query("""
            SELECT \(fragment: Self.columns) FROM devices WHERE token = \(token) OR bucket_key = \(token) ORDER BY token = \(token) DESC LIMIT 1
            """).devices().first
    }

    /// A page of devices in token order after `after`, filtered by status, platform, language
    /// (its primary subtag) and country, and by `search` within the token.
    func list(_ filter: DeviceFilter, after: String?, limit: Int, on connection: PostgresConnection) throws -> [StoredDevice] {
        try connection.query("""
            SELECT \(fragment: Self.columns) FROM devices
            WHERE (\(after)::text IS NULL OR token > \(after))
              AND (\(filter.status)::text IS NULL OR status = \(filter.status))
              AND (\(filter.platform)::text IS NULL OR platform = \(filter.platform))
              AND (\(filter.language)::text IS NULL OR language_primary = \(filter.language))
              AND (\(filter.country)::text IS NULL OR country = \(filter.country))
              AND (\(filter.search)::text IS NULL OR strpos(token, \(filter.search)) > 0)
            ORDER BY token LIMIT \(limit)
            """).devices()
    }

    /// Devices by status, and active ones by platform, language, country and app version (the
    /// ten most common of each).
    func counts(on connection: PostgresConnection) throws -> DeviceCounts {
        // Active devices from the census, the others by the index of inactive devices: read over
        // `devices`, this page took seconds at ten million devices.
        var counts = DeviceCounts()
        for row in try connection.query("SELECT status, count(*) FROM devices WHERE status <> \(constants: [DeviceStatus.active]) GROUP BY status") {
            let (status, count) = try row.decode((DeviceStatus, Int).self, columns: "status", "count")
            counts.byStatus[status] = count
        }
        counts.byPlatform = try DeviceCensus.top("platform", limit: 10, on: connection)
        counts.byLanguage = try DeviceCensus.top("language_primary", limit: 10, on: connection)
        counts.byCountry = try DeviceCensus.top("country", limit: 10, on: connection)
        counts.byAppVersion = try DeviceCensus.top("app_version", limit: 10, on: connection)
        let active = counts.byPlatform.reduce(0) { $0 + $1.1 }  // three platforms: all of them
        if active > 0 { counts.byStatus[.active] = active }
        return counts
    }

    /// The property names some device has, whatever its status: the columns of an export (which
    /// reads every device anyway).
    func propertyNames(on connection: PostgresConnection) throws -> Set<String> {
        Set(try connection.query("SELECT DISTINCT jsonb_object_keys(properties) FROM devices").map { try $0.decode(String.self, at: 0) })
    }

    /// Marks devices FCM refused as invalid, with the reason; they are sent nothing until registered again.
    func markInvalid(_ tokens: [String], reasons: [String], on connection: PostgresConnection) throws {
        guard !tokens.isEmpty else { return }
        _ = try connection.execute("""
            UPDATE devices d SET status = \(constants: [DeviceStatus.invalid]), invalid_reason = x.r, updated_at = now()
            FROM unnest(\(tokens), \(reasons)) AS x(t, r) WHERE d.token = x.t AND d.status <> \(constants: [DeviceStatus.invalid])
            """)
    }

    /// Marks active devices unseen for `days` whole UTC days as stale (last seen before the UTC
    /// day `days` days before today's, as segments count days); returns how many. `devices` is
    /// read only when the census (with the changes not yet folded) has an active device last seen
    /// before that day: once a day, as a rule, since a marking leaves none until the day turns
    /// (Migrations/0024).
    func markStale(unseenForDays days: Int, on connection: PostgresConnection) throws -> Int {
        let candidates = try connection.query("""
            WITH cutoff AS (SELECT (now() AT TIME ZONE 'UTC')::date - \(days)::integer AS day)
            SELECT EXISTS (SELECT 1 FROM device_census, cutoff WHERE last_seen_on < cutoff.day)
                OR EXISTS (SELECT 1 FROM device_census_changes, cutoff WHERE n > 0 AND last_seen_at < cutoff.day::timestamp AT TIME ZONE 'UTC')
            """).first?.decode(Bool.self, at: 0) ?? true
        guard candidates else { return 0 }
        return try connection.execute("""
            UPDATE devices SET status = \(constants: [DeviceStatus.stale]), updated_at = now()
            WHERE status = \(constants: [DeviceStatus.active]) AND last_seen_at < ((now() AT TIME ZONE 'UTC')::date - \(days)::integer)::timestamp AT TIME ZONE 'UTC'
            """)
    }

    /// Active devices matching `rule` (all active devices when nil): from the census when it can
    /// say (milliseconds at any size), else by counting them.
    func count(_ rule: SegmentRule?, on connection: PostgresConnection) throws -> Int {
        guard let query = DeviceCensus.reach(rule) else { return try countScanning(rule, on: connection) }
        return try connection.query(query).map { try $0.decode(Int.self, at: 0) }.first ?? 0
    }

    /// Active devices matching `rule`, counted one by one from `devices`: the rules the census
    /// cannot answer, and the yardstick its tests hold it to.
    func countScanning(_ rule: SegmentRule?, on connection: PostgresConnection) throws -> Int {
        let condition = SegmentSQL.condition(rule, firstParameter: 1)
        return try connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM devices WHERE \(Self.active) AND \(condition.sql)",
                                                  binds: condition.binds)).map { try $0.decode(Int.self, at: 0) }.first ?? 0
    }

    /// Active devices matching `rule` as PostgreSQL's planner estimates them (from its
    /// statistics, without reading a device): what the editor shows when counting takes too long.
    func estimatedCount(_ rule: SegmentRule?, on connection: PostgresConnection) throws -> Int {
        let condition = SegmentSQL.condition(rule, firstParameter: 1)
        let plan = try connection.query(PostgresQuery(unsafeSQL: "EXPLAIN (FORMAT JSON) SELECT 1 FROM devices WHERE \(Self.active) AND \(condition.sql)",
                                                      binds: condition.binds)).first?.decode(String.self, at: 0) ?? "[]"
        return Int(try JSON.parse(plan).arrayValue?.first?["Plan"]?["Plan Rows"]?.doubleValue ?? 0)
    }

    /// The time zones active devices have, for recipient time on topics.
    func timeZones(on connection: PostgresConnection) throws -> [String] {
        try DeviceCensus.timeZones(on: connection)
    }

    /// Active devices in a campaign's audience.
    func count(_ audience: DeviceAudience, on connection: PostgresConnection) throws -> Int {
        switch audience {
        case .segment(let rule): return try count(rule, on: connection)
        case .tokens(let tokens):
            // A listed token also names the device that moved from it to its FID (`bucket_key`).
            return try connection.query("SELECT count(*) FROM devices WHERE status = \(constants: [DeviceStatus.active]) AND (token = ANY(\(tokens)) OR bucket_key = ANY(\(tokens)))")
                .map { try $0.decode(Int.self, at: 0) }.first ?? 0
        }
    }

    /// Active devices of `audience` a Live Activity campaign reaches: iOS devices that registered
    /// their activity's token (the others get nothing from it).
    func countWithLiveActivity(_ audience: DeviceAudience, on connection: PostgresConnection) throws -> Int {
        let condition = audience.condition(firstParameter: 1)
        return try connection.query(PostgresQuery(unsafeSQL: """
            SELECT count(*) FROM devices WHERE \(Self.active) AND platform = 'ios' AND live_activity_token IS NOT NULL AND \(condition.sql)
            """, binds: condition.binds)).map { try $0.decode(Int.self, at: 0) }.first ?? 0
    }

    /// Up to `limit` active devices of `audience` after the token `after` (and up to `last`), in token order: a
    /// keyset page read along the primary key, whose cost is the page's, wherever it starts.
    func active(_ audience: DeviceAudience, after: String?, through last: String? = nil, only: String? = nil, limit: Int,
                on connection: PostgresConnection) throws -> [StoredDevice] {
        var binds: [PostgresValue] = [limit.postgresValue]
        var keyset = ""
        if let after {
            binds.append(after.postgresValue)
            keyset += " AND token > $\(binds.count)"
        }
        if let last {
            binds.append(last.postgresValue)
            keyset += " AND token <= $\(binds.count)"
        }
        if let only {
            binds.append(only.postgresValue)
            keyset += " AND token = $\(binds.count)"
        }
        let condition = audience.condition(firstParameter: binds.count + 1)
        return try connection.query(PostgresQuery(unsafeSQL: """
            SELECT \(Self.columns.sql) FROM devices WHERE \(Self.active)\(keyset) AND \(condition.sql) ORDER BY token LIMIT $1
            """, binds: binds + condition.binds)).devices()
    }

    /// The tokens of the active devices named by `tokens` (by their token, or the one they moved
    /// from to their FID): what an entry that reads nothing else of them asks, without reading
    /// their records.
    func activeTokens(named tokens: [String], on connection: PostgresConnection) throws -> [String] {
        try connection.query("""
            SELECT token FROM devices WHERE status = \(constants: [DeviceStatus.active]) AND (token = ANY(\(tokens)) OR bucket_key = ANY(\(tokens)))
            """).map { try $0.decode(String.self, at: 0) }
    }

    /// The device `token`, when it is active and in `audience`.
    func active(_ audience: DeviceAudience, only token: String, on connection: PostgresConnection) throws -> StoredDevice? {
        try active(audience, after: nil, through: nil, only: token, limit: 1, on: connection).first
    }

    /// Calls `body` with the active devices matching `rule` (or having one of `tokens`), `batch`
    /// at a time, through a cursor: a million devices are never in memory at once. Needs a transaction.
    func forEachActive(matching audience: DeviceAudience, batch: Int, on connection: PostgresConnection,
                       _ body: ([StoredDevice]) throws -> Void) throws {
        let declare: PostgresQuery
        switch audience {
        case .segment(let rule):
            let condition = SegmentSQL.condition(rule, firstParameter: 1)
            declare = PostgresQuery(unsafeSQL: "DECLARE herald_devices NO SCROLL CURSOR FOR SELECT \(Self.columns.sql) FROM devices WHERE \(Self.active) AND \(condition.sql)",
                                    binds: condition.binds)
        case .tokens(let tokens):
            declare = """
                DECLARE herald_devices NO SCROLL CURSOR FOR SELECT \(fragment: Self.columns) FROM devices
                WHERE status = \(constants: [DeviceStatus.active]) AND (token = ANY(\(tokens)) OR bucket_key = ANY(\(tokens)))
                """
        }
        _ = try connection.execute(declare)
        defer { _ = try? connection.execute("CLOSE herald_devices") }
        while true {
            let rows = try connection.query(PostgresQuery(unsafeSQL: "FETCH \(batch) FROM herald_devices")).devices()
            if rows.isEmpty { return }
            try body(rows)
        }
    }

    /// One device of a result whose columns `devices()` checked: read by position, since the
    /// sending path reads every device of an audience.
    fileprivate static func decode(_ row: PostgresRow) throws -> StoredDevice {
        func text(_ column: Int) throws -> String? { try row.decode(String?.self, at: column) }
        let token = try row.decode(String.self, at: 0), platform = try row.decode(String.self, at: 1)
        let (appID, appVersion, language, country, timeZone) = (try text(2), try text(3), try text(4), try text(5), try text(6))
        let properties = try row.decode(String.self, at: 7)
        // Its two times from libpq's bytes, without a copy (a few hundred instructions a device).
        let (lastSeen, registered, status, reason) = (try row.decode(Date.self, at: 8), try row.decode(Date.self, at: 9),
                                                      try row.decode(DeviceStatus.self, at: 10), try text(11))
        let (kind, bucketKey) = (DeviceKind(rawValue: try row.decode(String.self, at: 12)) ?? .token, try text(13))
        let quiet = try row.decode([String].self, at: 14)
        let liveActivityToken = try text(15)
        var map: [String: String] = [:]
        if properties != "{}", case .object(let object)? = try? JSON.parse(properties) {
            for (key, value) in object { map[key] = value.stringValue }
        }
        return StoredDevice(device: Device(token: token, kind: kind, platform: DevicePlatform(rawValue: platform) ?? .android, appID: appID,
                                           appVersion: appVersion, language: language, country: country, timeZone: timeZone, properties: map,
                                           lastSeen: lastSeen, bucketKey: bucketKey, quietCategories: quiet, liveActivityToken: liveActivityToken),
                            registeredAt: registered, status: status, invalidReason: reason)
    }

    static func propertiesJSON(_ properties: [String: String]) -> String {
        JSON.object(JSONObject(properties.sorted { $0.key < $1.key }.map { ($0.key, JSON.string($0.value)) })).serializedString()
    }
}

/// Which devices a run reaches. A list of tokens names devices by their identifier or by the
/// token they moved from to their FID, so a campaign or a retry batch that named the token still
/// reaches the moved device.
enum DeviceAudience: Sendable {
    case segment(SegmentRule)
    case tokens([String])

    /// As a run keeps it: `{"segment": rule}` or `{"tokens": [...]}`.
    var json: JSON {
        switch self {
        case .segment(let rule): ["segment": rule.toJSON()]
        case .tokens(let tokens): ["tokens": .array(tokens.map(JSON.string))]
        }
    }

    /// Its devices as a condition over `devices`, the parameters numbered from `firstParameter`:
    /// a list of tokens names devices by their identifier or by the token they moved from.
    func condition(firstParameter: Int) -> (sql: String, binds: [PostgresValue]) {
        switch self {
        case .segment(let rule): SegmentSQL.condition(rule, firstParameter: firstParameter)
        case .tokens(let tokens): ("(token = ANY($\(firstParameter)) OR bucket_key = ANY($\(firstParameter)))", [tokens.postgresValue])
        }
    }

    init?(json: JSON) {
        if let rule = json["segment"], case .success(let parsed) = SegmentRule.parse(rule) {
            self = .segment(parsed)
        } else if let tokens = json["tokens"]?.arrayValue {
            self = .tokens(tokens.compactMap(\.stringValue))
        } else {
            return nil
        }
    }
}

/// A device as the registry holds it.
public struct StoredDevice: Sendable, Equatable {
    public var device: Device
    /// When it was first registered.
    public var registeredAt: Date
    public var status: DeviceStatus
    public var invalidReason: String?

    public init(device: Device, registeredAt: Date, status: DeviceStatus, invalidReason: String? = nil) {
        self.device = device
        self.registeredAt = registeredAt
        self.status = status
        self.invalidReason = invalidReason
    }
}

/// The devices page's and the list API's filters; nil is "any".
public struct DeviceFilter: Sendable, Equatable {
    public var status: DeviceStatus?
    public var platform: String?
    public var language: String?
    public var country: String?
    public var search: String?

    public init(status: DeviceStatus? = nil, platform: String? = nil, language: String? = nil, country: String? = nil, search: String? = nil) {
        self.status = status
        self.platform = platform
        self.language = language
        self.country = country
        self.search = search
    }
}

/// How many devices there are, by status and by what segments filter on.
public struct DeviceCounts: Sendable {
    var byStatus: [DeviceStatus: Int] = [:]
    public var byPlatform: [(String, Int)] = []
    public var byLanguage: [(String, Int)] = []
    public var byCountry: [(String, Int)] = []
    public var byAppVersion: [(String, Int)] = []

    public var active: Int { byStatus[.active] ?? 0 }
    public var invalid: Int { byStatus[.invalid] ?? 0 }
    public var stale: Int { byStatus[.stale] ?? 0 }
}

extension PostgresRows {
    /// The devices of a result of `DeviceStore.columns`, its columns checked once.
    func devices() throws -> [StoredDevice] {
        try requireColumns(DeviceStore.columnNames)
        return try map(DeviceStore.decode)
    }
}

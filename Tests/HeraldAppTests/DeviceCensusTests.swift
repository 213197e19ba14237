import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import Testing
@testable import HeraldApp

/// The census of active devices (Migrations/0020) that segment reach reads: it must stay what
/// counting `devices` says through every way a device changes, and reach from it must equal the
/// devices a send would read, for every kind of condition.
@Suite(.serialized) struct DeviceCensusTests {
    typealias Setup = AudienceDeliveryTests.Setup

    /// A UTC time `days` days before today's UTC midnight, plus `seconds`.
    static func utc(daysAgo days: Int, plus seconds: Int = 0) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let midnight = calendar.startOfDay(for: Date())
        let date = midnight.addingTimeInterval(TimeInterval(-days * 86400 + seconds))
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// The census as `devices` has it now, and as the census tables (with their pending changes) say.
    static func censusRows(_ connection: PostgresConnection) throws -> (devices: [String], census: [String]) {
        let dimensions = DeviceCensus.dimensions, propertyDimensions = DeviceCensus.propertyDimensions
        let fromDevices = try connection.query(PostgresQuery(unsafeSQL: """
            SELECT format('%s|%s|%s', name, value, ROW(\(dimensions), n)) FROM (
                SELECT NULL AS name, NULL AS value, \(dimensions), count(*) AS n
                FROM (SELECT *, (last_seen_at AT TIME ZONE 'UTC')::date AS last_seen_on FROM devices WHERE status = 'active') AS d
                GROUP BY \(dimensions)
                UNION ALL
                SELECT p.key, p.value #>> '{}', \(propertyDimensions), NULL, count(*)
                FROM devices AS d, jsonb_each(d.properties) AS p WHERE status = 'active'
                GROUP BY p.key, p.value #>> '{}', \(propertyDimensions)) AS x
            ORDER BY 1
            """)).map { try $0.decode(String.self, at: 0) }
        let fromCensus = try connection.query(PostgresQuery(unsafeSQL: """
            SELECT format('%s|%s|%s', name, value, ROW(\(dimensions), n)) FROM (
                SELECT name, value, \(dimensions), sum(n)::bigint AS n FROM (
                    SELECT NULL AS name, NULL AS value, \(dimensions), n FROM device_census
                    UNION ALL SELECT name, value, \(propertyDimensions), NULL, n FROM device_property_census
                    UNION ALL SELECT NULL, NULL, \(propertyDimensions), (last_seen_at AT TIME ZONE 'UTC')::date, n FROM device_census_changes
                    UNION ALL SELECT p.key, p.value, \(propertyDimensions), NULL, n
                              FROM device_census_changes, jsonb_each_text(properties) AS p) AS c
                GROUP BY name, value, \(dimensions) HAVING sum(n) <> 0) AS x
            ORDER BY 1
            """)).map { try $0.decode(String.self, at: 0) }
        return (fromDevices, fromCensus)
    }

    /// Rules of every condition kind, alone and together, and the ones the census leaves to `devices`.
    static let rules: [JSON] = [
        ["all": [["field": "platform", "equals": "ios"]]],
        ["all": [["field": "language", "in": ["fa", "he"]]]],
        ["all": [["field": "language", "equals": "fa-IR"]]],
        ["all": [["field": "language", "not_in": ["de"]]]],
        ["all": [["field": "country", "in": ["IR", "IL"]], ["field": "platform", "equals": "android"]]],
        ["all": [["field": "app_id", "equals": "com.example.news"]]],
        ["all": [["field": "app_version", "at_least": "5.2"], ["field": "platform", "not_in": ["web"]]]],
        ["all": [["field": "app_version", "equals": "5.10"]]],
        ["all": [["field": "time_zone", "in": ["Asia/Tehran", "Asia/Jerusalem"]]]],
        ["all": [["last_seen_within_days": 1]]],
        ["all": [["last_seen_within_days": 2]]],
        ["all": [["last_seen_within_days": 3], ["field": "language", "equals": "fa"]]],
        ["all": [["property": "city", "equals": "Tehran"]]],
        ["all": [["property": "city", "exists": true], ["field": "language", "not_in": ["de"]]]],
        ["all": [["any": [["property": "city", "equals": "Tehran"], ["property": "city", "equals": "Shiraz"]]], ["field": "platform", "not_in": ["web"]]]],
        ["all": [["property": "city", "in": ["Tehran", "Shiraz"]], ["field": "language", "not_in": ["de"]]]],
        ["any": [["field": "country", "equals": "VN"], ["all": [["field": "platform", "equals": "web"], ["last_seen_within_days": 1]]]]],
        // Counted from devices: two property names, a property beside another field under "any", beside "last seen", "not in".
        ["all": [["property": "city", "equals": "Tehran"], ["property": "vip", "exists": true]]],
        ["all": [["property": "city", "equals": "Tehran"], ["last_seen_within_days": 2]]],
        ["any": [["property": "city", "equals": "Tehran"], ["field": "country", "equals": "VN"]]],
        ["all": [["property": "city", "not_in": ["Tehran"]], ["field": "platform", "equals": "android"]]],
    ]

    /// Every rule's reach, as the census says it and as counting devices does (nil when the census
    /// does not answer it).
    static func reaches(_ setup: Setup, _ connection: PostgresConnection) throws -> [(rule: String, census: Int?, devices: Int)] {
        try rules.map { json in
            guard case .success(let rule) = SegmentRule.parse(json) else { throw AppError.unavailable("refused \(json.serializedString())") }
            let census = try DeviceCensus.reach(rule).map { try connection.query($0).first?.decode(Int.self, at: 0) ?? -1 }
            return (json.serializedString(), census, try DeviceStore().countScanning(rule, on: connection))
        }
    }

    /// The census and `devices` agree, and so does every reach; `step` names the change checked.
    /// With the changes not yet folded into the counts, and again once they are.
    func expectExact(_ setup: Setup, after step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for folded in [false, true] {
            if folded { _ = try setup.devices.foldCensus() }
            let step = folded ? step + ", folded" : step
            let rows = try Self.censusRows(setup.probe.connection)
            // The rows one side has and the other lacks (each "name|value|(attributes, count)").
            let missing = rows.devices.filter { !rows.census.contains($0) }, extra = rows.census.filter { !rows.devices.contains($0) }
            #expect(missing.isEmpty && extra.isEmpty && !rows.devices.isEmpty,
                    "census after \(step): lacks \(missing.prefix(5)), has too \(extra.prefix(5))", sourceLocation: sourceLocation)
            for reach in try Self.reaches(setup, setup.probe.connection) {
                if let census = reach.census {
                    #expect(census == reach.devices, "\(reach.rule) after \(step)", sourceLocation: sourceLocation)
                }
            }
        }
        #expect(try setup.probe.count("SELECT count(*) FROM device_census_changes") == 0, sourceLocation: sourceLocation)
    }

    @Test(.timeLimit(.minutes(5)))
    func theCensusStaysExactThroughEveryChangeOfADevice() throws {
        let setup = try Setup()
        defer { setup.probe.close() }
        let languages = ["fa", "fa-IR", "he-IL", "vi", "en-US", "de"], countries = ["IR", "IL", "VN", "US"]
        let zones = ["Asia/Tehran", "Asia/Jerusalem", "Asia/Ho_Chi_Minh", "America/New_York"]
        // Last seen around the day boundaries the rules ask about: the first and the last second of a day.
        let sightings = [Self.utc(daysAgo: 0, plus: 60), Self.utc(daysAgo: 1), Self.utc(daysAgo: 1, plus: -1), Self.utc(daysAgo: 2),
                         Self.utc(daysAgo: 2, plus: -1), Self.utc(daysAgo: 3, plus: 43200), Self.utc(daysAgo: 40)]
        let documents: [JSON] = (0..<400).map { index in
            var document: JSONObject = ["token": .string("census-\(index)"), "platform": .string(["android", "ios", "web"][index % 3]),
                                        "last_seen_at": .string(sightings[index % sightings.count])]
            if index % 7 != 0 { document["language"] = .string(languages[index % languages.count]) }
            if index % 5 != 0 { document["app_version"] = .string(["5.1", "5.2", "5.2.1", "5.10", "6"][(index / 5) % 5]) }
            if index % 4 != 0 { document["country"] = .string(countries[(index / 4) % 4]); document["time_zone"] = .string(zones[(index / 4) % 4]) }
            if index % 6 == 0 { document["app_id"] = "com.example.news" }
            var properties: JSONObject = [:]
            if index % 3 == 0 { properties["city"] = .string(["Tehran", "Shiraz", "Haifa"][(index / 3) % 3]) }
            if index % 8 == 0 { properties["vip"] = "yes" }
            if !properties.isEmpty { document["properties"] = .object(properties) }
            return .object(document)
        }

        // An import (batches of 5,000: one statement), then the same file again (every row an update).
        try setup.register(documents)
        try expectExact(setup, after: "the import")
        #expect(try Self.reaches(setup, setup.probe.connection).first?.devices ?? 0 > 0)
        try setup.register(documents)
        try expectExact(setup, after: "the import again")

        // A reach in flight holds the changes table: the fold cannot empty it, and deletes what it
        // folds instead, leaving what it did not see.
        let reader = try PostgresConnection(url: setup.url)
        defer { reader.close() }
        try reader.executeScript("BEGIN; SELECT count(*) FROM device_census_changes")
        _ = try setup.devices.register(token: "census-while-read", document: ["platform": "web", "language": "vi", "properties": ["city": "Haifa"]])
        #expect(try setup.devices.foldCensus() == 1)
        #expect(try setup.probe.count("SELECT count(*) FROM device_census_changes") == 0)
        try reader.executeScript("COMMIT")
        try expectExact(setup, after: "a fold beside a reader")

        // Registering one new device, and updating one: new attributes, a new day, other properties.
        _ = try setup.devices.register(token: "census-new", document: ["platform": "ios", "language": "fa", "properties": ["city": "Tehran"]])
        try expectExact(setup, after: "a registration")
        _ = try setup.devices.register(token: "census-3", document: ["platform": "web", "language": "he-IL", "country": "IL",
                                                                     "app_version": "6", "properties": ["vip": "yes"]])
        try expectExact(setup, after: "an update")

        // FCM refuses two devices: they leave the census; registered again, they come back.
        try DeviceStore().markInvalid(["census-1", "census-2"], reasons: ["UNREGISTERED", "UNREGISTERED"], on: setup.probe.connection)
        try expectExact(setup, after: "invalidation")
        _ = try setup.devices.register(token: "census-1", document: ["platform": "android", "language": "fa"])
        try expectExact(setup, after: "registering an invalid device again")

        // Unseen for 30 days: stale, out of the census.
        #expect(try setup.devices.markStale(unseenForDays: 30) > 0)
        try expectExact(setup, after: "marking stale")

        // Forgotten (an erasure request), and a stale one forgotten too.
        try setup.devices.forget("census-4")
        try setup.devices.forget("census-6")  // 40 days unseen: stale
        try expectExact(setup, after: "forgetting")

        // A change to what a segment cannot see (the invalid reason) changes no count, and leaves no empty row.
        _ = try setup.probe.connection.execute("UPDATE devices SET updated_at = now() WHERE token LIKE 'census-1%'")
        try expectExact(setup, after: "an update of nothing counted")
        #expect(try setup.probe.count("SELECT count(*) FROM device_census WHERE n = 0") == 0)
        #expect(try setup.probe.count("SELECT count(*) FROM device_property_census WHERE n = 0") == 0)

        // Each rule the census answers, it answers as SegmentService.reach does; the last four it leaves to devices.
        let reaches = try Self.reaches(setup, setup.probe.connection)
        #expect(reaches.map { $0.census == nil }.suffix(5) == [false, true, true, true, true])
        for (json, reach) in zip(Self.rules, reaches) {
            guard case .success(let rule) = SegmentRule.parse(json) else { continue }
            #expect(try setup.segments.reach(rule) == reach.devices, "\(reach.rule)")
        }
    }

    /// "Unseen for 30 days" in whole UTC days, as segments count them: a device last seen in the
    /// first second of the day 30 days back stays active, one seen the second before goes stale;
    /// a second marking finds nothing (the census says so without reading the registry).
    @Test(.timeLimit(.minutes(5)))
    func devicesGoStaleByWholeUTCDays() throws {
        let setup = try Setup()
        defer { setup.probe.close() }
        try setup.register([["token": "on-the-day", "platform": "ios", "last_seen_at": .string(Self.utc(daysAgo: 30))],
                            ["token": "the-day-before", "platform": "ios", "last_seen_at": .string(Self.utc(daysAgo: 30, plus: -1))],
                            ["token": "today", "platform": "web"]])
        #expect(try setup.devices.markStale(unseenForDays: 30) == 1)
        #expect(try setup.devices.get("the-day-before").status == .stale)
        #expect(try setup.devices.get("on-the-day").status == .active)
        #expect(try setup.devices.markStale(unseenForDays: 30) == 0)
        try expectExact(setup, after: "marking by whole days")
    }

    /// Two imports at once over the same attribute combinations: neither waits for the other's
    /// census rows nor deadlocks, and the census ends exact (each appends its changes; the folds are one at a time).
    @Test(.timeLimit(.minutes(5)))
    func concurrentImportsKeepTheCensusExactWithoutDeadlocks() async throws {
        let setup = try Setup()
        defer { setup.probe.close() }
        func documents(_ prefix: String) -> [UInt8] {
            let platforms = ["android", "ios"], languages = ["fa", "he"], countries = ["IR", "IL", "VN"]
            let lines: [String] = (0..<3000).map { index in
                let document: JSONObject = ["token": .string("\(prefix)-\(index)"), "platform": .string(platforms[index % 2]),
                                            "language": .string(languages[index % 2]), "country": .string(countries[index % 3]),
                                            "properties": ["bucket": .string(String(index % 10))]]
                return JSON.object(document).serializedString()
            }
            return Array(lines.joined(separator: "\n").utf8)
        }
        let devices = setup.devices
        try await withThrowingTaskGroup(of: DeviceImportReport.self) { group in
            for prefix in ["left", "right", "middle"] {
                let body = documents(prefix)
                group.addTask {
                    var chunks = body.chunks(of: 4096)
                    return try devices.importDevices(format: .ndjson, batchSize: 100) { chunks.isEmpty ? nil : chunks.removeFirst() }
                }
            }
            for try await report in group { #expect(report.failedRows == 0 && report.created == 3000) }
        }
        try expectExact(setup, after: "three imports at once")
        #expect(try setup.segments.reach(nil) == 9000)
        #expect(try setup.segments.reach(try #require(try? SegmentRule.parse(["all": [["property": "bucket", "equals": "3"]]]).get())) == 900)
    }
}

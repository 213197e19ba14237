import FCMMessage
import Foundation
import HeraldCore
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// The claim's cap check (one SQL statement) and the forecast's (`FrequencyCaps.allows`, Swift)
/// read one rule: over 400 random histories they admit exactly the same devices; a device
/// admitted is counted once per run, however often its batch is claimed.
@Suite(.serialized) struct DeviceTouchStoreTests {
    @Test(.timeLimit(.minutes(2)))
    func theClaimAndTheForecastAdmitTheSameDevices() throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        let caps = FrequencyCaps(marketing: .init(hour: 2, day: 4, week: 6), categories: ["promotions": .init(hour: 1, day: 2)])
        var generator = SystemRandomNumberGenerator()
        let now = Date()
        var histories: [String: [(at: Date, category: String?)]] = [:]
        for index in 0..<400 {
            // Up to 7 messages over the last 8 days, some of them promotions.
            let count = Int.random(in: 0...7, using: &generator)
            histories["touch-\(index)"] = (0..<count).map { _ in
                // Clear of each window's edge by a minute, so that the two readings of "now" cannot disagree.
                var age = Double.random(in: 60...(8 * 86_400), using: &generator)
                while FrequencyCaps.Window.allCases.contains(where: { abs(age - Double($0.seconds)) < 60 }) { age += 120 }
                return (now.addingTimeInterval(-age),
                        Bool.random(using: &generator) ? "promotions" : (Bool.random(using: &generator) ? "news" : nil))
            }.sorted { $0.0 < $1.0 }
        }
        for (token, history) in histories where !history.isEmpty {
            let times = history.map { RFC3339.utc(secondsSince1970: $0.at.timeIntervalSince1970) }
            _ = try connection.execute("""
                INSERT INTO device_touches (key, at, category, run)
                VALUES (hashtextextended(\(token), 0), \(times)::timestamptz[], \(history.map { $0.category ?? "" })::text[], array_fill(gen_random_uuid(), ARRAY[\(history.count)::integer]))
                """)
            _ = try connection.execute("UPDATE device_touches SET category = array_replace(category, '', NULL) WHERE key = hashtextextended(\(token), 0)")
        }
        let run = UUID().uuidString.lowercased()
        let tokens = histories.keys.sorted()
        let admitted = try connection.transaction { try DeviceTouchStore().admit(tokens, category: "promotions", run: run, caps: caps, on: $0) }
        let expected = Set(tokens.filter { caps.allows(histories[$0]!, category: "promotions", now: now) })
        #expect(admitted == expected, "SQL admitted \(admitted.count), Swift \(expected.count); apart: \(admitted.symmetricDifference(expected).sorted().prefix(5))")
        #expect(!expected.isEmpty && expected.count < tokens.count)

        // The same run claims the same devices again (a batch taken over): the same answer, nothing counted twice.
        let again = try connection.transaction { try DeviceTouchStore().admit(tokens, category: "promotions", run: run, caps: caps, on: $0) }
        #expect(again == admitted)
        let counted = try connection.query("SELECT count(*) FROM device_touches, unnest(run) AS r WHERE r = \(run)::uuid").first?.decode(Int.self, at: 0)
        #expect(counted == admitted.count)
    }
}

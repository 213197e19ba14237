import FCMMessage
import Foundation
import HeraldCore
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// The caps' memory: a device's history is read back from the rows of streamed batches (ranges
/// of tokens) and of requests planned as rows (one token each) alike, whichever way a claim lies;
/// a device admitted is counted once per run, however often its batch is claimed.
@Suite(.serialized) struct DeviceTouchStoreTests {
    @Test(.timeLimit(.minutes(2)))
    func aClaimReadsEachDevicesHistoryFromBatchesAndSingleRowsAlike() throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        let caps = FrequencyCaps(marketing: .init(hour: 2, day: 4, week: 6), categories: ["promotions": .init(hour: 1, day: 2)])
        var generator = SystemRandomNumberGenerator()
        let tokens = (0..<400).map { String(format: "touch-%03d", $0) }
        var histories: [String: [(at: Date, category: String?)]] = [:]
        let now = Date()
        // Twelve earlier runs over the last 8 days, each to a random part of the devices; half of
        // them streamed (a row per 50 tokens in order, its range holding devices it skipped), half
        // planned as rows (a row per device).
        for index in 0..<12 {
            // Clear of each window's edge by a minute, so that the two readings of "now" cannot disagree.
            var age = Double.random(in: 60...(8 * 86_400), using: &generator)
            while FrequencyCaps.Window.allCases.contains(where: { abs(age - Double($0.seconds)) < 60 }) { age += 120 }
            let category: String? = [nil, "news", "promotions"].randomElement(using: &generator)!
            let audience = tokens.filter { _ in Double.random(in: 0..<1, using: &generator) < 0.4 }
            let at = RFC3339.utc(secondsSince1970: now.addingTimeInterval(-age).timeIntervalSince1970)
            for token in audience { histories[token, default: []].append((now.addingTimeInterval(-age), category)) }
            let run = UUID().uuidString
            let rows = index.isMultiple(of: 2) ? stride(from: 0, to: audience.count, by: 50).map { Array(audience[$0..<min($0 + 50, audience.count)]) }
                                               : audience.map { [$0] }
            for row in rows {
                _ = try connection.execute("""
                    INSERT INTO touch_batches (run, at, category, tokens, keys)
                    SELECT \(run)::uuid, \(at)::timestamptz, \(category)::text, token_range(min(t), max(t), '[]'), array_agg(hashtextextended(t, 0))
                    FROM unnest(\(row)::text[]) AS t
                    """)
            }
        }
        let expected = Set(tokens.filter { caps.allows(histories[$0] ?? [], category: "promotions", now: now) })
        #expect(!expected.isEmpty && expected.count < tokens.count)

        // Read as a range (streamed, in batches of 100) and as scattered tokens: the same devices.
        let run = RunID(UUID().uuidString)!
        func admitted(_ layout: DeviceTouchStore.Layout) throws -> Set<String> {
            try connection.transaction { connection in
                try stride(from: 0, to: tokens.count, by: 100).reduce(into: Set<String>()) { admitted, start in
                    admitted.formUnion(try DeviceTouchStore().admit(Array(tokens[start..<start + 100]), category: "promotions", run: run,
                                                                    caps: caps, layout: layout, on: connection))
                }
            }
        }
        let scattered = try admitted(.scattered)
        #expect(scattered == expected, "apart: \(scattered.symmetricDifference(expected).sorted().prefix(5))")
        _ = try connection.execute("DELETE FROM touch_batches WHERE run = \(run)::uuid")
        let ranged = try admitted(.range)
        #expect(ranged == expected, "apart: \(ranged.symmetricDifference(expected).sorted().prefix(5))")

        // The same run claims the same devices again (a batch taken over): the same answer, nothing counted twice.
        #expect(try admitted(.range) == expected)
        #expect(try admitted(.scattered) == expected)
        let counted = try connection.query("SELECT count(*) FROM touch_batches, unnest(keys) WHERE run = \(run)::uuid").first?.decode(Int.self, at: 0)
        #expect(counted == expected.count)

        // The next run counts this one's messages: each admitted device's history is one longer.
        let next = try connection.transaction {
            try DeviceTouchStore().admit(tokens, category: "promotions", run: RunID(UUID().uuidString)!, caps: caps, layout: .range, on: $0)
        }
        let later = Date()
        #expect(next == Set(tokens.filter { token in
            caps.allows((histories[token] ?? []) + (expected.contains(token) ? [(later, "promotions")] : []), category: "promotions", now: later)
        }))

        // A device's messages go with it to its FID, and are forgotten with it.
        let moved = expected.sorted()[0]
        let store = DeviceTouchStore()
        let before = try connection.transaction { try store.histories(of: [moved], layout: .scattered, memory: 8 * 86_400, on: $0) }[moved]?.count
        try connection.transaction { try store.move(moved, to: "fid-\(moved)", on: $0) }
        let after = try connection.transaction { try store.histories(of: [moved, "fid-\(moved)"], layout: .scattered, memory: 8 * 86_400, on: $0) }
        #expect(after[moved] == nil && after["fid-\(moved)"]?.count == before)
        try connection.transaction { try store.forget("fid-\(moved)", on: $0) }
        #expect(try store.histories(of: ["fid-\(moved)"], layout: .range, memory: 8 * 86_400, on: connection).isEmpty)
    }
}

import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import Testing
@testable import HeraldApp

/// A run's kind is one column (`runs.kind`), the only thing this release writes and reads of it.
/// The release before wrote and read two booleans, and serves beside this one during an upgrade
/// (and after a rollback): each release's runs must read right to the other.
@Suite struct RunKindTests {
    /// The kinds as the release before wrote them, with what this release must read.
    static let before: [(perDevice: Bool, streamed: Bool, audience: Bool, failedUnplanned: Bool, kind: RunKind)] = [
        (false, false, false, false, .fanOut),
        (true, false, true, false, .devicesPlanned),
        (true, true, true, false, .devicesStreamed),
        (true, false, false, false, .oneCall),
        (false, false, false, true, .unplanned),
    ]

    @Test func aRunWrittenByTheReleaseBeforeIsReadByItsKind() throws {
        let harness = try TestApplication()
        let campaign = try campaignRow(harness)
        for (index, old) in Self.before.enumerated() {
            // The release before's insert: no kind, its booleans.
            try harness.execute("""
                INSERT INTO runs (campaign_id, occurrence, planned, per_device, streamed, audience, status)
                VALUES ('\(campaign)', now() + interval '\(index) minutes', \(old.failedUnplanned ? 0 : 5), \(old.perDevice), \(old.streamed),
                        \(old.audience ? "'{\"all\": []}'" : "NULL"), '\(old.failedUnplanned ? "failed" : "sending")')
                """)
            #expect(try harness.count("SELECT count(*) FROM runs WHERE kind = '\(old.kind.rawValue)'") == 1, "\(old)")
        }
    }

    @Test func aRunWrittenNowKeepsTheBooleansTheReleaseBeforeReads() throws {
        let harness = try TestApplication()
        let campaign = CampaignID(try campaignRow(harness))!
        try harness.pool.withConnection { connection in
            for (index, kind) in [RunKind.fanOut, .devicesPlanned, .devicesStreamed, .oneCall].enumerated() {
                let written = try RunWriter().insert([NewRun(kind: kind, campaignID: campaign, occurrence: "2030-01-0\(index + 1)T00:00:00Z", version: 1)],
                                                     on: connection)
                let row = try connection.query("SELECT kind, per_device, streamed, planning FROM runs WHERE id = \(written[0].runID)::uuid")[0]
                let (stored, perDevice, streamed, planning) = try row.decode((RunKind, Bool, Bool, Bool).self, columns: "kind", "per_device", "streamed", "planning")
                #expect(stored == kind)
                #expect(perDevice == RunKind.toDevices.contains(kind), "\(kind)")
                #expect(streamed == (kind == .devicesStreamed), "\(kind)")
                #expect(planning == kind.startsPlanning, "\(kind)")
            }
        }
        // A campaign that could not be planned: its failed run says so, and reads as no device run to the release before.
        let due = DeliveryStore.Due(campaignID: campaign, content: .object([:]), version: 1, occurrence: Date(), occurrenceText: "2031-01-01T00:00:00Z")
        try harness.pool.withConnection { try RunWriter().insertFailed([(due, "No target")], on: $0) }
        #expect(try harness.count("SELECT count(*) FROM runs WHERE kind = 'unplanned' AND status = 'failed' AND NOT per_device AND NOT streamed") == 1)
    }

    private func campaignRow(_ harness: TestApplication) throws -> String {
        try harness.pool.withConnection { connection in
            try connection.query("INSERT INTO campaigns (name, content) VALUES ('Kinds', '{}'::jsonb) RETURNING id::text")[0].decode(String.self, at: 0)
        }
    }
}

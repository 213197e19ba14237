import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldSync
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// Workers claiming topic fan-outs at the same moment never hold two requests of one run: a crash
/// may then repeat at most one fan-out request of each run. (A claim whose snapshot predated
/// another's commit once took a second request of a run that had just been claimed.)
@Suite(.serialized) struct FanOutClaimRaceTests {
    @Test(.timeLimit(.minutes(2)))
    func concurrentClaimersHoldAtMostOneRequestOfARun() async throws {
        let harness = try TestApplication()
        let actor = Actor(name: "publisher@example.com", address: "127.0.0.1")
        for index in 0..<30 {
            let spec = try CampaignService.validated(campaignJSON(name: "Race \(index)", topics: (0..<50).map { "race-\(index)-\($0)" }))
            let record = try harness.app.campaigns.create(spec, by: actor, now: Date())
            _ = try harness.app.campaigns.publishNow(record.id, expectedVersion: record.version, by: actor, now: Date())
        }
        let setup = try PostgresConnection(url: harness.databaseURL)
        defer { setup.close() }
        #expect(try RunStarter(buckets: AudienceBuckets()).startDueRuns(limit: 100, now: Date(), on: setup).count == 30)

        let claimers = 6
        let connections = try (0..<claimers).map { _ in Held(try PostgresConnection(url: harness.databaseURL)) }
        defer { connections.forEach { $0.connection.close() } }
        var worst = 0
        for _ in 0..<20 {
            // Every claimer starts its claim at once; the leases are then taken back for the next try.
            let start = ConditionLock(false)
            let done = ConditionLock(0)
            for (index, held) in connections.enumerated() {
                try startThread(name: "claimer-\(index)") {
                    start.wait { $0 ? () : nil }
                    _ = try? DeliveryStore().claim(owner: "claimer-\(index)", limit: 32, lease: .seconds(60), on: held.connection)
                    done.withLock { $0 += 1 }
                    done.broadcast()
                }
            }
            start.withLock { $0 = true }
            start.broadcast()
            done.wait { $0 == claimers ? () : nil }
            let most = try setup.query("""
                SELECT coalesce(max(held), 0) FROM (SELECT count(*) AS held FROM deliveries
                WHERE lease_expires_at > now() GROUP BY run_id) counts
                """).first?.decode(Int.self, at: 0) ?? -1
            worst = max(worst, most)
            try harness.execute("UPDATE deliveries SET lease_expires_at = NULL, lease_owner = NULL")
        }
        #expect(worst == 1, "a run had \(worst) requests in flight at once")
    }
}

/// A connection used by one thread at a time: each claimer's, handed to its thread.
private final class Held: @unchecked Sendable {
    let connection: PostgresConnection
    init(_ connection: PostgresConnection) { self.connection = connection }
}

import Foundation
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

#if canImport(Glibc)
import Glibc
#endif

/// The chores that must run once per deployment run on the instance holding the leader lease;
/// when it dies another takes over within a lease, and the doctor and /metrics say who leads.
@Suite(.serialized) struct LeaderLeaseTests {
    @Test func theLeaseIsTakenRenewedAndTakenOverOnlyOnceRunOut() throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        let store = LeaderLeaseStore()
        #expect(try store.take("chores", owner: "a", lease: .seconds(30), on: connection))
        #expect(try !store.take("chores", owner: "b", lease: .seconds(30), on: connection), "held by a")
        let first = try #require(try store.holder("chores", on: connection))
        #expect(try store.take("chores", owner: "a", lease: .seconds(30), on: connection), "a renews")
        let renewed = try #require(try store.holder("chores", on: connection))
        #expect(renewed.owner == "a" && renewed.acquiredAt == first.acquiredAt && renewed.expiresAt >= first.expiresAt)

        // Run out (as if a stopped renewing 30 s ago): b takes it.
        _ = try connection.execute("UPDATE leader_leases SET expires_at = now() - interval '1 second'")
        #expect(try store.take("chores", owner: "b", lease: .seconds(30), on: connection))
        #expect(try !store.take("chores", owner: "a", lease: .seconds(30), on: connection), "a comes back too late")
        #expect(try store.holder("chores", on: connection)?.owner == "b")

        // A clean stop hands it over at once; another owner's release does nothing.
        try store.release("chores", owner: "a", on: connection)
        #expect(try store.holder("chores", on: connection)?.owner == "b")
        try store.release("chores", owner: "b", on: connection)
        #expect(try store.take("chores", owner: "a", lease: .seconds(30), on: connection))
    }

    /// The steps of `service` an instance last reported, by the pid in its owner id.
    static func reported(_ connection: PostgresConnection) throws -> [pid_t: [String: (steps: Int, waiting: Bool)]] {
        var result: [pid_t: [String: (steps: Int, waiting: Bool)]] = [:]
        for instance in try InstanceReportStore().seen(withinSeconds: 600, on: connection) where !instance.stopped {
            let parts = instance.owner.split(separator: ":")
            guard parts.count >= 2, let pid = pid_t(parts[parts.count - 2]) else { continue }
            result[pid] = Dictionary(uniqueKeysWithValues: instance.services.map { ($0.name, ($0.steps, $0.waitingForLeadership)) })
        }
        return result
    }

    static func leader(_ connection: PostgresConnection) throws -> (pid: pid_t, holder: LeaderLeaseStore.Holder)? {
        guard let holder = try LeaderLeaseStore().holder(Leadership.leaseName, on: connection) else { return nil }
        let parts = holder.owner.split(separator: ":")
        return pid_t(parts[parts.count - 2]).map { ($0, holder) }
    }

    @Test(.timeLimit(.minutes(3)))
    func twoInstancesRunEachLeaderChoreOnOneAndTheOtherTakesOverAfterAKill() async throws {
        let url = try DeliveryOutboxTests.migratedDatabase()
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        let sink = try EmulatorSink()
        let lease = 3
        let environment = DeliveryInstancesTests.environment(sink).merging(["HERALD_LEADER_LEASE_SECONDS": String(lease)]) { $1 }
        let processes = try (0..<2).map { _ in try HeraldProcess(databaseURL: url, environment: environment) }
        for process in processes { try await process.waitUntilSending() }

        // Both report; the leader has run every chore (they take turns, so a report may come
        // between two of them: waited for, not assumed), the other waits for the lease and runs
        // what every instance runs.
        let chores = ["census-fold", "run-closing", "stale-devices", "delivery-retention", "webhook-retention", "idempotency-expiry"]
        let everywhere = ["scheduler", "webhook-dispatch", "leader-lease"]
        var leaderPID: pid_t = 0
        #expect(try await eventually(timeout: .seconds(90)) {
            guard let leader = try Self.leader(connection), leader.holder.secondsLeft > 0 else { return false }
            leaderPID = leader.pid
            let reports = try Self.reported(connection)
            guard reports.count == 2, let follower = reports.first(where: { $0.key != leader.pid })?.value else { return false }
            return chores.allSatisfy { (reports[leader.pid]?[$0]?.steps ?? 0) > 0 && follower[$0]?.waiting == true }
                && everywhere.allSatisfy { (follower[$0]?.steps ?? 0) > 0 }
        })
        let reports = try Self.reported(connection)
        let follower = try #require(processes.first { $0.pid != leaderPID })
        let leader = try #require(processes.first { $0.pid == leaderPID })
        for chore in chores {
            #expect((reports[leaderPID]?[chore]?.steps ?? 0) > 0, "\(chore) ran on the leader")
            #expect(reports[follower.pid]?[chore]?.steps == 0, "\(chore) did not run on the other instance")
        }
        for service in everywhere {
            #expect((reports[follower.pid]?[service]?.steps ?? 0) > 0, "\(service) runs on every instance")
        }

        // kill -9: no clean hand-over; the other instance takes the lease once it runs out.
        let before = try #require(try Self.leader(connection)).holder
        leader.killAndReap()
        var after: LeaderLeaseStore.Holder?
        #expect(try await eventually(timeout: .seconds(60)) {
            after = try Self.leader(connection).flatMap { $0.pid == follower.pid ? $0.holder : nil }
            return after != nil
        })
        let takenOver = try #require(after)
        let late = takenOver.acquiredAt.timeIntervalSince(before.expiresAt)
        print("leader killed: lease ran out, the other instance took it \(String(format: "%.2f", late)) s later (lease \(lease) s)")
        #expect(late <= Double(lease), "taken over within one lease of running out")
        // And runs the chores: its census fold steps.
        #expect(try await eventually(timeout: .seconds(60)) {
            (try Self.reported(connection)[follower.pid]?["census-fold"]?.steps ?? 0) > 0
        })
        #expect(await follower.stop(SIGTERM))
        #expect(try Self.leader(connection) == nil, "a clean stop hands the lease back")
    }
}

import HeraldCrypto
import Foundation
import HeraldHTTP
import HeraldTestSupport
import Synchronization
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// Sign-in hashes the password (PBKDF2, 600,000 rounds: a good part of a second on purpose)
/// without holding a database connection, so a burst of sign-ins cannot starve other requests
/// of the pool. With one pooled connection, twenty sign-ins that held one each while hashing
/// would keep a read waiting for seconds.
@Suite(.serialized) final class AccessSignInLoadTests {
    let harness: AccessHarness

    init() throws {
        harness = try AccessHarness(environment: ["HERALD_DB_POOL_SIZE": "1", "HERALD_SIGNIN_MAX_FAILURES": "1000"])
    }

    @Test(.timeLimit(.minutes(5)))
    func twentyConcurrentSignInsDoNotHoldUpAReadOfACampaign() throws {
        let password = "a long enough password"
        let user = try harness.user(.editor, password: password)
        let key = try harness.key(.viewer)
        let created = harness.send(.post, "/api/v1/campaigns", headers: [("Authorization", "Bearer \(harness.herald.apiKey)"), ("Content-Type", "application/json")],
                                   body: CampaignsAPITests.campaign().serialized())
        let id = try #require(created.json?["id"]?.stringValue)
        func read() -> (status: Int, seconds: Double) {
            let start = ContinuousClock.now
            let status = harness.send(.get, "/api/v1/campaigns/\(id)", headers: [("Authorization", "Bearer \(key)")]).status
            let elapsed = start.duration(to: .now)
            return (status, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        #expect(read().status == 200)

        let finished = Atomic<Int>(0)
        let statuses = Mutex<[Int]>([])
        let signIns = harness
        for index in 0..<20 {
            Thread.detachNewThread {
                // Half right, half wrong: both paths hash.
                let status = signIns.signIn(user.email, index.isMultiple(of: 2) ? password : "wrong password \(index)").status
                statuses.withLock { $0.append(status) }
                finished.add(1, ordering: .sequentiallyConsistent)
            }
        }
        var reads: [(status: Int, seconds: Double)] = []
        let deadline = ContinuousClock.now.advanced(by: waitingLimit)
        while finished.load(ordering: .sequentiallyConsistent) < 20, ContinuousClock.now < deadline {
            reads.append(read())
            // Reads sample the sign-ins at a pace: this spaces them, it waits for nothing.
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(statuses.withLock { $0 }.sorted() == Array(repeating: 303, count: 10) + Array(repeating: 401, count: 10))
        #expect(reads.count >= 3, "the sign-ins ended before the reads could overlap them")
        #expect(reads.allSatisfy { $0.status == 200 }, "\(reads)")
        let slowest = reads.map(\.seconds).max() ?? 0
        // Holding the pool while hashing made this several seconds (or a 503 after the 5 s acquire timeout).
        #expect(slowest < 1.5, "a read waited \(slowest) s during the sign-ins")
    }
}

/// The lock counts each attempt before its password is checked, in one step per account, so a
/// burst of parallel guesses gets no more checks than the limit.
@Suite(.serialized) final class AccessSignInLockRaceTests {
    let harness: AccessHarness

    init() throws {
        harness = try AccessHarness()
    }

    @Test(.timeLimit(.minutes(5)))
    func fortyParallelWrongPasswordsCheckAtMostTheLimit() async throws {
        let user = try harness.user(.editor, password: "the right password")
        let statuses = Mutex<[Int]>([])
        let group = DispatchGroup()
        let signIns = harness
        for index in 0..<40 {
            group.enter()
            Thread.detachNewThread {
                let status = signIns.signIn(user.email, "wrong password \(index)").status
                statuses.withLock { $0.append(status) }
                group.leave()
            }
        }
        try await offThePool { group.wait() }
        let answers = statuses.withLock { $0 }
        // 401: the password was checked and was wrong; 429: refused unchecked, the account locked.
        #expect(answers.filter { $0 == 401 }.count == 10, "\(answers.sorted())")
        #expect(answers.filter { $0 == 429 }.count == 30, "\(answers.sorted())")
        #expect(harness.signIn(user.email, "the right password").status == 429)
    }
}

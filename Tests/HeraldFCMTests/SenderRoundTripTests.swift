import FCMEmulator
import Foundation
import HeraldFCM
import HeraldTestSupport
import HeraldJSON
import Testing

/// The sender against the emulator over real sockets on 127.0.0.1.
@Suite struct SenderRoundTripTests {
    @Test func signsGetsATokenSendsAndTheEmulatorListsTheMessage() throws {
        let harness = try EmulatorHarness()
        let (sender, tokens) = try harness.sender()
        let message: JSON = ["topic": "news", "notification": ["title": "Hello", "body": "from Herald"]]

        let outcome = sender.send(message)
        let name = try #require(outcome.name, "\(outcome)")
        #expect(name.hasPrefix("projects/herald-test/messages/"))
        #expect(harness.emulator.messages().map(\.message) == [message])
        #expect(harness.emulator.messages().map(\.name) == [name])

        // The token is cached: a second send does not fetch another.
        #expect(sender.send(message).name != nil)
        #expect(tokens.fetchCount == 1)
        #expect(harness.emulator.accessTokensIssued == 1)
    }

    @Test func manyThreadsAskingAtOnceCauseOneTokenFetch() throws {
        let harness = try EmulatorHarness()
        let (_, tokens) = try harness.sender()
        let group = DispatchGroup()
        let seen = LatencyLog()
        for _ in 0..<16 {
            group.enter()
            Thread {
                if (try? tokens.accessToken()) == nil { seen.fail() }
                group.leave()
            }.start()
        }
        group.wait()
        #expect(seen.failures == 0)
        #expect(tokens.fetchCount == 1)
        #expect(harness.emulator.accessTokensIssued == 1)
    }

    @Test func aDryRunIsAnsweredButNotDelivered() throws {
        let harness = try EmulatorHarness()
        let (sender, _) = try harness.sender()
        #expect(sender.send(["topic": "news"], validateOnly: true) == .sent(name: "projects/herald-test/messages/fake_message_id"))
        #expect(harness.emulator.messages().isEmpty)
    }

    @Test func anAssertionSignedWithTheWrongKeyIsRefused() throws {
        let harness = try EmulatorHarness()
        let (sender, _) = try harness.sender(keys: TestKeys.other)
        let error = try #require(sender.send(["topic": "news"]).error)
        #expect(error.code == .authentication)
        #expect(error.httpStatus == 400)
        #expect(error.message.contains("invalid_grant: Invalid JWT Signature."))
        #expect(!error.isRetryable)
        #expect(harness.emulator.accessTokensIssued == 0)
        #expect(harness.emulator.messages().isEmpty)
    }

    @Test func aRefusedTokenIsRefreshedOnceAndTheSendRepeated() throws {
        let harness = try EmulatorHarness()
        let (sender, tokens) = try harness.sender()
        #expect(sender.send(["topic": "news"]).name != nil)
        harness.emulator.revokeAccessTokens()  // as if the token had expired early

        #expect(sender.send(["topic": "weather"]).name != nil)
        #expect(tokens.fetchCount == 2)
        #expect(harness.emulator.sendAttempts().map(\.status) == [200, 401, 200])
    }

    @Test func aTokenRefusedEvenAfterRefreshIsReportedNotRetriedForever() throws {
        let harness = try EmulatorHarness { $0.accessTokenLifetime = 0 }  // every token is already expired
        let (sender, tokens) = try harness.sender()
        let error = try #require(sender.send(["topic": "news"]).error)
        #expect(error.code == .unauthenticated)
        #expect(error.httpStatus == 401)
        #expect(tokens.fetchCount == 2)
        #expect(harness.emulator.sendAttempts().count == 2)
    }

    @Test(arguments: [
        ("unknown field", ["topic": "news", "notification": ["title": "Hi", "subtitle": "x"]] as JSON),
        ("bad ttl", ["topic": "news", "android": ["ttl": "1 day"]] as JSON),
        ("payload over the limit", ["topic": "news", "data": ["k": JSON.string(String(repeating: "x", count: 2100))]] as JSON),
        ("two targets", ["topic": "news", "token": "device-1"] as JSON),
    ])
    func strictValidationIsAPermanentInvalidArgument(_ case: String, _ message: JSON) throws {
        let harness = try EmulatorHarness()
        let (sender, _) = try harness.sender(policy: RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(10)))
        let result = sender.sendWithRetries(message)
        let error = try #require(result.outcome.error, "\(`case`) was accepted")
        #expect(error.code == .invalidArgument)
        #expect(error.httpStatus == 400)
        #expect(!error.isRetryable)
        #expect(result.attempts.count == 1)
        #expect(harness.emulator.sendAttempts().count == 1)
    }

    @Test func anUnregisteredTokenIsPermanent() throws {
        let harness = try EmulatorHarness { $0.unregisteredTokens = ["uninstalled"] }
        let (sender, _) = try harness.sender()
        let error = try #require(sender.sendWithRetries(["token": "uninstalled"]).outcome.error)
        #expect(error.code == .unregistered)
        #expect(error.httpStatus == 404)
        #expect(harness.emulator.sendAttempts().count == 1)
    }

    @Test func aBatchKeepsItsOrderAndEveryMessageArrivesOnce() throws {
        let harness = try EmulatorHarness { $0.messageCapacity = 1000 }
        let (sender, _) = try harness.sender()
        let batch: [JSON] = (0..<300).map { ["topic": "news", "data": ["n": .string("\($0)")]] }
        let outcomes = sender.send(batch: batch, concurrency: 16)
        #expect(outcomes.allSatisfy { $0.name != nil })
        #expect(Set(outcomes.compactMap(\.name)).count == 300)
        let received = harness.emulator.messages()
        #expect(Set(received.map { $0.message["data"]?["n"] }).count == 300)
        // Outcome i belongs to message i: the names the emulator gave match.
        let nameByNumber = Dictionary(uniqueKeysWithValues: received.map { ($0.message["data"]?["n"]?.stringValue ?? "", $0.name) })
        #expect(outcomes.indices.allSatisfy { nameByNumber["\($0)"] == outcomes[$0].name })
    }

    @Test func noServerIsARetryableTransportError() throws {
        let (sender, _) = try EmulatorHarness().sender()  // the harness (and its server) is gone at once
        let error = try #require(sender.send(["topic": "news"]).error)
        #expect(error.code == .authentication)
        #expect(error.isRetryable)
        #expect(error.message.contains("did not answer"))
    }

    @Test func aDroppedConnectionIsARetryableTransportError() throws {
        // HeraldHTTP always answers, so a raw stub drops the connection.
        let stub = try StubServer { _ in .dropConnection }
        defer { stub.stop() }
        let sender = FCMSender(configuration: FCMConfiguration(projectID: "p", baseURL: "http://127.0.0.1:\(stub.port)"),
                               credentials: StaticAccessToken("t"))
        let dropped = try #require(sender.send(["topic": "news"]).error)
        #expect(dropped.code == .transport)
        #expect(dropped.httpStatus == nil)
        #expect(dropped.isRetryable)
        #expect(dropped.message.contains("curl error 52"))
    }

    @Test func aSlowAnswerTimesOut() throws {
        let slow = try EmulatorHarness { $0.faults = FaultInjection(slow: 1, slowDelay: .seconds(2), seed: 1) }
        let started = ContinuousClock.now
        let timedOut = try #require(try slow.sender(timeout: .milliseconds(300)).0.send(["topic": "news"]).error)
        #expect(timedOut.code == .transport)
        #expect(timedOut.message.contains("curl error 28"))
        #expect(ContinuousClock.now - started < .seconds(2))
    }
}

@Suite struct DevelopmentSetupTests {
    @Test func aGeneratedKeyFileWorksAgainstTheEmulatorThatTrustsIt() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-dev-\(UInt32.random(in: 0 ... .max)).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let configuration = try FCMEmulatorConfiguration.development(projectID: "herald-dev", tokenURI: "http://127.0.0.1:1/token", writingKeyFileTo: path)
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        let emulator = try FCMEmulator(configuration: configuration)
        let server = try emulator.start()
        defer { server.shutdown(); server.wait() }
        let account = try ServiceAccount(contentsOfFile: path)
        #expect(account.projectID == "herald-dev")
        let sender = FCMSender(configuration: FCMConfiguration(projectID: account.projectID, baseURL: "http://127.0.0.1:\(server.port)"),
                               serviceAccount: account, tokenURI: "http://127.0.0.1:\(server.port)/token")
        #expect(sender.send(["topic": "news"]).name != nil)
        #expect(emulator.messages().count == 1)
    }
}

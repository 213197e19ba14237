import Foundation
import HeraldTestSupport
import HeraldJSON
import HeraldHTTP
import HeraldPostgres
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// Sessions and API keys are trusted from memory for a while (no query per request), and a
/// revocation on one instance reaches every instance at once through the database's NOTIFY.
@Suite(.serialized) final class CredentialCacheTests {
    /// Connections the instance has taken from its pool so far: each is a round trip to the database.
    func checkouts(_ herald: TestHerald) -> Int {
        herald.server.application.database.pool.statistics.checkouts
    }

    /// Whether `herald`'s cache comes to hold `apiKey`, asked for it until it does: a cache
    /// remembers only once its listener is connected, which a busy machine may take a while after
    /// start to be, and until then every check is a query.
    func cached(_ herald: TestHerald, apiKey: String) async throws -> Bool {
        let cache = try #require(herald.server.application.credentials)
        return try await eventually(timeout: waitingLimit) {
            _ = try herald.server.application.authenticator.viewer(apiKey: apiKey)
            return cache.viewer(CredentialCache.apiKeyKey(apiKey)) != nil
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aKeyRevokedOnOneInstanceStopsWorkingOnEveryInstanceWithinASecond() async throws {
        let first = try TestHerald()
        let second = try TestHerald(databaseURL: first.databaseURL)
        let created = try await first.request("POST", "/api/v1/api-keys", json: ["name": "my scripts", "role": "editor"])
        let id = try #require(created.json?["id"]?.stringValue)
        let key = try #require(created.json?["key"]?.stringValue)
        func status(_ herald: TestHerald) async throws -> Int {
            try await herald.request("GET", "/api/v1/campaigns", headers: ["Authorization": "Bearer \(key)"]).status
        }
        // Warm both caches, then revoke on the first instance.
        #expect(try await status(first) == 200)
        #expect(try await status(second) == 200)
        #expect(try await cached(second, apiKey: key))
        #expect(try await first.request("DELETE", "/api/v1/api-keys/\(id)").status == 200)
        let revokedAt = ContinuousClock.now
        // The other instance's own check, polled every 10 ms: the HTTP round trip is not the cache's delay.
        let authenticator = second.server.application.authenticator
        while try authenticator.viewer(apiKey: key) != nil, ContinuousClock.now - revokedAt < .seconds(1) {
            // Polled, not awaited: the delay until the other instance refuses is the measurement.
            try await Task.sleep(for: .milliseconds(10))
        }
        let delay = ContinuousClock.now - revokedAt
        #expect(delay < .seconds(1))
        #expect(try await status(second) == 401)
        #expect(try await status(first) == 401)
        print("credential cache: a key revoked on one instance was refused by the other \(delay) later")
    }

    @Test(.timeLimit(.minutes(5)))
    func aCachedKeyIsCheckedWithoutAQueryAndADisabledUsersSessionEndsEverywhere() async throws {
        // Entries outlive the twenty requests however slow the machine: their lifetime is not this
        // test's. No scheduler: its polls take connections of the same pool whenever they come due,
        // and on a busy machine the twenty requests last long enough for some to fall among them.
        let first = try TestHerald(environment: ["HERALD_CREDENTIAL_CACHE_SECONDS": "3600", "HERALD_SCHEDULER": "false"])
        let second = try TestHerald(databaseURL: first.databaseURL)
        func campaigns(_ herald: TestHerald, _ headers: [String: String]) async throws -> Int {
            try await herald.request("GET", "/api/v1/campaigns", headers: headers).status
        }
        let auth = ["Authorization": "Bearer \(first.apiKey)"]
        #expect(try await first.request("GET", "/api/v1/me", headers: auth).status == 200)
        #expect(try await cached(first, apiKey: first.apiKey))
        // Checked once, the key is known from memory: `GET /api/v1/me` needs nothing else, so
        // twenty of them take no connection at all.
        let before = checkouts(first)
        var answers: [Int] = []
        for _ in 0..<20 { answers.append(try await first.request("GET", "/api/v1/me", headers: auth).status) }
        let taken = checkouts(first) - before
        #expect(taken == 0, "twenty requests with a cached key took \(taken) connections")
        #expect(answers.allSatisfy { $0 == 200 }, "\(answers)")

        // A user's session, used on both instances; disabling the user ends it on both.
        let user = try first.server.application.accounts.createUser(email: "ana@example.com", role: .editor, password: "a long enough password",
                                                                     by: Actor(name: "test"))
        let signedIn = try first.server.application.signIn.signIn(email: "ana@example.com", password: "a long enough password",
                                                                 address: "127.0.0.1", previousSession: nil)
        // In process, as a browser with only this cookie would ask (no client cookie store in between).
        func me(_ herald: TestHerald) -> Int {
            var headers = HTTPHeaders()
            headers.add("Cookie", "\(Authentication.sessionCookie)=\(signedIn.sessionID.cookieValue)")
            return herald.server.respond(HTTPRequest(method: .get, target: "/api/v1/me", headers: headers, body: [],
                                                     remoteAddress: "127.0.0.1:40000")).status
        }
        #expect(me(first) == 200 && me(second) == 200)
        _ = try first.server.application.accounts.updateUser(id: user.id, role: nil, disabled: true, password: nil, by: Actor(name: "test"))
        #expect(try await eventually(timeout: .seconds(1)) { me(second) == 401 })
        #expect(me(first) == 401)
    }
}

import HeraldCrypto
import Foundation
import HeraldTestSupport
import HeraldHTTP
import HeraldPostgres
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// Session expiry, the events scope, and where the client's address comes from.
@Suite(.serialized) final class AccessSessionTests {
    let harness: AccessHarness

    init() throws {
        harness = try AccessHarness(environment: ["HERALD_TRUST_FORWARDED_FOR": "true"])
    }

    func me(_ session: String) -> Int {
        harness.send(.get, "/api/v1/me", headers: [("Cookie", "\(Authentication.sessionCookie)=\(session)")]).status
    }

    @Test func anIdleOrTooOldSessionNoLongerWorks() async throws {
        let user = try harness.user(.viewer)
        let idle = try harness.session(user)
        let old = try harness.session(user)
        #expect(me(idle.id) == 200 && me(old.id) == 200)
        let idleSeconds = harness.herald.server.application.configuration.accounts.sessionIdleSeconds
        try harness.pool.withConnection { connection in
            _ = try connection.execute("""
                UPDATE sessions SET last_seen_at = now() - make_interval(secs => \(idleSeconds + 1))
                WHERE id_sha256 = \(SHA256.hex(idle.id))
                """)
            _ = try connection.execute("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id_sha256 = \(SHA256.hex(old.id))")
        }
        // Cut short by hand, a cached session is dropped when the database's notification arrives:
        // within a second on every instance (CredentialCacheTests), in milliseconds here.
        #expect(try await eventually(timeout: .seconds(1)) { me(idle.id) == 401 && me(old.id) == 401 })
        // A session in use slides: its last-seen time moves forward (at most once a minute).
        let active = try harness.session(user)
        try harness.pool.withConnection { connection in
            _ = try connection.execute("UPDATE sessions SET last_seen_at = now() - interval '2 hours' WHERE id_sha256 = \(SHA256.hex(active.id))")
        }
        #expect(me(active.id) == 200)
        let age = try harness.pool.withConnection { connection in
            try connection.query("""
                SELECT extract(epoch FROM now() - last_seen_at)::float8 FROM sessions WHERE id_sha256 = \(SHA256.hex(active.id))
                """).first?.decode(Double.self, at: 0)
        }
        #expect((age ?? 9999) < 60)
    }

    @Test func aDisabledUsersSessionsEnd() throws {
        let user = try harness.user(.editor)
        let session = try harness.session(user)
        #expect(me(session.id) == 200)
        let patched = harness.send(.patch, "/api/v1/users/\(user.id)",
                                   headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(harness.herald.apiKey)")],
                                   body: Array(#"{"disabled":true}"#.utf8))
        #expect(patched.status == 200)
        #expect(patched.json?["disabled"] == true)
        #expect(me(session.id) == 401)
        #expect(harness.signIn(user.email, "correct horse battery staple").status == 401)
    }

    @Test func theEventsEndpointTakesAnEventsKeyOrAnEditor() throws {
        // An empty body is refused by the handler (415), after the access rule let the caller in.
        func post(_ key: String?) -> Int {
            harness.send(.post, "/api/v1/events", headers: key.map { [("Authorization", "Bearer \($0)")] } ?? []).status
        }
        #expect(post(nil) == 401)
        #expect(post(try harness.key(.viewer, scope: .events)) == 415)
        #expect(post(try harness.key(.viewer)) == 403)
        #expect(post(try harness.key(.editor)) == 415)
    }

    @Test func behindATrustedProxyTheAuditLogRecordsTheForwardedAddress() throws {
        let response = harness.send(.post, "/api/v1/api-keys",
                                    headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(harness.herald.apiKey)"),
                                              ("X-Forwarded-For", "203.0.113.7")],
                                    body: Array(#"{"name":"via proxy","role":"viewer"}"#.utf8))
        #expect(response.status == 201)
        let audit = harness.send(.get, "/api/v1/audit?limit=1", headers: [("Authorization", "Bearer \(harness.herald.apiKey)")])
        #expect(audit.json?["items"]?.arrayValue?.first?["address"] == "203.0.113.7")
    }
}

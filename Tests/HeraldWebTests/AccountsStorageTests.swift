import HeraldCrypto
import Foundation
import HeraldHTTP
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// What the database holds: no password, session id or API key as given.
@Suite(.serialized) final class AccountsStorageTests {
    let harness: AccessHarness

    init() throws {
        harness = try AccessHarness()
    }

    @Test func theDatabaseHoldsNoPasswordSessionIdOrKeyInClearText() throws {
        let password = "sesame-\(UUID().uuidString)"
        let wrongPassword = "guess-\(UUID().uuidString)"
        let user = try harness.user(.admin, password: password)
        let failed = harness.signIn(user.email, wrongPassword)
        #expect(failed.status == 401)
        let signedIn = harness.signIn(user.email, password)
        #expect(signedIn.status == 303)
        #expect(signedIn.headers["Location"] == "/campaigns")
        let sessionID = try #require(signedIn.cookie(Authentication.sessionCookie))
        #expect(sessionID.count >= 43)
        let setCookie = signedIn.headers.values(for: "Set-Cookie").first { $0.hasPrefix(Authentication.sessionCookie) } ?? ""
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax") && setCookie.contains("Path=/"))

        // The session works, and creating a key through the API shows the key exactly once.
        let cookie = try #require(SessionID(cookie: sessionID))
        let session = try #require(try harness.pool.withConnection { try harness.sessions.viewer(sessionID: cookie, on: $0) }?.0)
        let created = harness.send(.post, "/api/v1/api-keys",
                                   headers: [("Content-Type", "application/json"),
                                             ("Cookie", "\(Authentication.sessionCookie)=\(sessionID)"),
                                             (Authentication.csrfHeader, session.csrfToken ?? "")],
                                   body: Array(#"{"name":"ci","role":"editor"}"#.utf8))
        #expect(created.status == 201)
        let key = try #require(created.json?["key"]?.stringValue)
        #expect(harness.send(.get, "/api/v1/me", headers: [("Authorization", "Bearer \(key)")]).status == 200)
        let listed = harness.send(.get, "/api/v1/api-keys", headers: [("Authorization", "Bearer \(key)")])
        #expect(listed.status == 403)  // an editor key cannot list keys
        let asAdmin = harness.send(.get, "/api/v1/api-keys", headers: [("Authorization", "Bearer \(harness.herald.apiKey)")])
        #expect(!asAdmin.text.contains(key))

        // The CSRF token too: it is derived from the session id, never stored.
        let secrets = [password, wrongPassword, sessionID, key, harness.herald.apiKey, try #require(session.csrfToken)]
        for table in ["users", "sessions", "api_keys", "audit_log", "sign_in_failures", "campaigns"] {
            let rows = try harness.rows(table)
            for row in rows {
                for secret in secrets {
                    #expect(!row.contains(secret), "\(table) holds a secret in clear text: \(row)")
                }
            }
        }
        // What is stored instead: the KDF string and the hashes.
        let userRow = try #require(try harness.rows("users").first { $0.contains(user.id.description) })
        #expect(userRow.contains("pbkdf2-sha256$600000$"))
        #expect(try harness.rows("sessions").contains { $0.contains(SHA256.hex(sessionID)) })
        #expect(try harness.rows("api_keys").contains { $0.contains(SHA256.hex(key)) })
    }

    @Test func aRevokedKeyStopsWorkingAndTheAuditLogSaysWhoDidIt() throws {
        let admin = harness.herald.apiKey
        let created = harness.send(.post, "/api/v1/api-keys", headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(admin)")],
                                   body: Array(#"{"name":"short-lived","role":"viewer"}"#.utf8))
        let key = try #require(created.json?["key"]?.stringValue)
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(created.json?["prefix"]?.stringValue.map { key.hasPrefix($0) } == true)
        #expect(harness.send(.get, "/api/v1/campaigns", headers: [("Authorization", "Bearer \(key)")]).status == 200)
        let revoked = harness.send(.delete, "/api/v1/api-keys/\(id)", headers: [("Authorization", "Bearer \(admin)")])
        #expect(revoked.status == 200)
        #expect(revoked.json?["revoked_at"]?.stringValue != nil)
        let refused = harness.send(.get, "/api/v1/campaigns", headers: [("Authorization", "Bearer \(key)")])
        #expect(refused.status == 401)
        #expect(refused.headers["WWW-Authenticate"]?.contains("invalid_token") == true)

        let audit = harness.send(.get, "/api/v1/audit?limit=1", headers: [("Authorization", "Bearer \(admin)")])
        let newest = try #require(audit.json?["items"]?.arrayValue?.first)
        #expect(audit.json?["items"]?.arrayValue?.count == 1)
        #expect(newest["action"] == "api_key.revoked")
        #expect(newest["object_id"]?.stringValue == id)
        #expect(newest["actor"] == "api-key:tests")
        #expect(newest["address"] == "127.0.0.1")
        // The cursor pages on to the older entry: the creation.
        let cursor = try #require(audit.json?["next_cursor"]?.stringValue)
        let older = harness.send(.get, "/api/v1/audit?limit=1&cursor=\(cursor)", headers: [("Authorization", "Bearer \(admin)")])
        let previous = try #require(older.json?["items"]?.arrayValue?.first)
        #expect(previous["action"] == "api_key.created")
        #expect(previous["object_id"]?.stringValue == id)
        #expect(previous["details"]?["name"] == "short-lived")
    }
}

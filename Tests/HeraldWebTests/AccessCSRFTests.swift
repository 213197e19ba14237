import Foundation
import HeraldHTTP
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// A state-changing request that comes with a session cookie must carry that session's CSRF token.
@Suite(.serialized) final class AccessCSRFTests {
    let harness: AccessHarness

    init() throws {
        harness = try AccessHarness()
    }

    @Test func aFormPostWithoutItsTokenOrWithAnotherSessionsIsRefusedAndChangesNothing() throws {
        let admin = try harness.user(.admin)
        let mine = try harness.session(admin)
        let other = try harness.session(try harness.user(.admin))
        let keysBefore = try harness.count("api_keys")
        let auditBefore = try harness.count("audit_log")

        let missing = harness.post("/api-keys", form: [("name", "no token"), ("role", "admin")], session: mine.id)
        #expect(missing.status == 403)
        let foreign = harness.post("/api-keys", form: [("csrf_token", other.csrf), ("name", "other token"), ("role", "admin")],
                                   session: mine.id)
        #expect(foreign.status == 403)
        let wrong = harness.post("/api-keys", form: [("csrf_token", mine.csrf + "x"), ("name", "bad token"), ("role", "admin")],
                                 session: mine.id)
        #expect(wrong.status == 403)
        #expect(try harness.count("api_keys") == keysBefore)
        #expect(try harness.count("audit_log") == auditBefore)

        // The same post with its own token goes through, and shows the new key once.
        let proper = harness.post("/api-keys", form: [("csrf_token", mine.csrf), ("name", "good token"), ("role", "viewer")],
                                  session: mine.id)
        #expect(proper.status == 200)
        #expect(proper.text.contains("hk_"))
        #expect(try harness.count("api_keys") == keysBefore + 1)
    }

    @Test func anAPIWriteWithASessionCookieNeedsTheCSRFHeader() throws {
        let editor = try harness.session(try harness.user(.editor))
        let before = try harness.count("campaigns")
        let body = Array(#"{"name":"x","notification":{"title":"T","body":"B"},"topics":["news"]}"#.utf8)
        let cookie = ("Cookie", "\(Authentication.sessionCookie)=\(editor.id)")
        let refused = harness.send(.post, "/api/v1/campaigns", headers: [("Content-Type", "application/json"), cookie], body: body)
        #expect(refused.status == 403)
        #expect(refused.json?["code"] == "csrf_token_invalid")
        #expect(try harness.count("campaigns") == before)
        let accepted = harness.send(.post, "/api/v1/campaigns",
                                    headers: [("Content-Type", "application/json"), cookie, (Authentication.csrfHeader, editor.csrf)],
                                    body: body)
        #expect(accepted.status == 201)
        #expect(accepted.json?["author"]?.stringValue?.hasPrefix("editor-") == true)
        #expect(try harness.count("campaigns") == before + 1)
    }

    @Test func signOutEndsTheSessionForGood() throws {
        let session = try harness.session(try harness.user(.viewer))
        let cookie = ("Cookie", "\(Authentication.sessionCookie)=\(session.id)")
        #expect(harness.send(.get, "/api/v1/me", headers: [cookie]).status == 200)
        let out = harness.post("/sign-out", form: [("csrf_token", session.csrf)], session: session.id)
        #expect(out.status == 303)
        #expect(out.cookie(Authentication.sessionCookie) == "")
        #expect(harness.send(.get, "/api/v1/me", headers: [cookie]).status == 401)
    }
}

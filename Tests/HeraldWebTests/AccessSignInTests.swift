import Foundation
import HeraldHTTP
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// Sign-in: the session cookie, `next` kept local, and the lock after ten failures.
@Suite(.serialized) final class AccessSignInTests {
    /// Far longer than ten password hashes take even on a loaded machine; the window's end is
    /// reached by ageing the recorded failures, not by sleeping through it.
    static let window = 600
    let harness: AccessHarness

    init() throws {
        harness = try AccessHarness(environment: ["HERALD_SIGNIN_WINDOW_SECONDS": String(Self.window)])
    }

    @Test func tenWrongPasswordsLockTheAccountUntilTheWindowPasses() async throws {
        let password = "the right password"
        let user = try harness.user(.editor, password: password)
        for attempt in 1...10 {
            let response = harness.signIn(user.email, "wrong password \(attempt)")
            #expect(response.status == 401, "attempt \(attempt)")
            #expect(response.cookie(Authentication.sessionCookie) == nil)
        }
        let locked = harness.signIn(user.email, password)
        #expect(locked.status == 429)
        #expect(locked.cookie(Authentication.sessionCookie) == nil)
        #expect(locked.text.contains("Too many failed sign-ins"))
        #expect(try harness.rows("sessions").isEmpty)

        // Another account from the same address is not locked by this one's failures.
        let other = try harness.user(.viewer, password: password)
        #expect(harness.signIn(other.email, password).status == 303)

        _ = try harness.pool.withConnection { connection in
            try connection.execute("UPDATE sign_in_failures SET failed_at = failed_at - make_interval(secs => \(Self.window + 1))")
        }
        let after = harness.signIn(user.email, password)
        #expect(after.status == 303)
        #expect(after.cookie(Authentication.sessionCookie) != nil)
    }

    @Test func signingInAgainRotatesTheSessionAndNextStaysLocal() throws {
        let user = try harness.user(.viewer)
        let first = try #require(harness.signIn(user.email, "correct horse battery staple").cookie(Authentication.sessionCookie))
        let token = "t-\(UUID().uuidString)"
        let form = [("csrf_token", token), ("email", user.email), ("password", "correct horse battery staple"),
                    ("next", "//evil.example.com/phish")]
        let second = harness.send(.post, "/sign-in", headers: [
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Cookie", "\(SignInPages.signInCookie)=\(token); \(Authentication.sessionCookie)=\(first)"),
        ], body: Array(AccessHarness.encode(form).utf8))
        #expect(second.status == 303)
        #expect(second.headers["Location"] == "/")
        let rotated = try #require(second.cookie(Authentication.sessionCookie))
        #expect(rotated != first)
        let me = { (id: String) in self.harness.send(.get, "/api/v1/me", headers: [("Cookie", "\(Authentication.sessionCookie)=\(id)")]).status }
        #expect(me(first) == 401)
        #expect(me(rotated) == 200)
    }

    @Test func theSignInFormRefusesAPostWithoutItsOwnToken() throws {
        let user = try harness.user(.viewer)
        let form = [("csrf_token", "forged"), ("email", user.email), ("password", "correct horse battery staple")]
        let response = harness.send(.post, "/sign-in", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                    body: Array(AccessHarness.encode(form).utf8))
        #expect(response.status == 403)
        #expect(response.cookie(Authentication.sessionCookie) == nil)
    }

    @Test func aPageSendsTheBrowserToSignInAndBack() throws {
        let response = harness.send(.get, "/audit?cursor=5")
        #expect(response.status == 303)
        #expect(response.headers["Location"] == "/sign-in?next=/audit%3Fcursor%3D5")
        let form = harness.send(.get, "/sign-in?next=/audit%3Fcursor%3D5")
        #expect(form.status == 200)
        #expect(form.text.contains(#"name="next" value="/audit?cursor&#61;5""#) || form.text.contains(#"value="/audit?cursor=5""#))
        #expect(form.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
    }
}

/// Behind TLS the session cookie is `__Host-herald_session`: Secure, the whole path, no domain,
/// so a subdomain can neither set nor shadow it; the plain name is then not a session.
@Suite(.serialized) final class SecureSessionCookieTests {
    let harness: AccessHarness

    init() throws {
        harness = try AccessHarness(environment: ["HERALD_COOKIE_SECURE": "true"])
    }

    @Test func theSessionCookieTakesTheHostPrefixBehindTLS() throws {
        let user = try harness.user(.viewer, password: "a long enough password")
        let signedIn = harness.signIn(user.email, "a long enough password")
        #expect(signedIn.status == 303)
        let session = try #require(signedIn.cookie(Authentication.hostOnlySessionCookie))
        let header = try #require(signedIn.headers.values(for: "Set-Cookie").first { $0.hasPrefix("__Host-") })
        #expect(header.contains("; Secure") && header.contains("Path=/") && !header.contains("Domain="))
        #expect(signedIn.cookie(Authentication.sessionCookie) == nil)
        #expect(harness.send(.get, "/campaigns", headers: [("Cookie", "\(Authentication.hostOnlySessionCookie)=\(session)")]).status == 200)
        #expect(harness.send(.get, "/campaigns", headers: [("Cookie", "\(Authentication.sessionCookie)=\(session)")]).sendsToSignIn)
    }
}

import HeraldHTTP
import HeraldJSON
import HeraldPostgres

/// `GET/POST /sign-in` and `POST /sign-out`.
///
/// The sign-in form is protected against login CSRF by a double-submit token: `GET` sets a random
/// cookie `herald_signin` (for `/sign-in` only) and puts the same value in the form. A successful
/// sign-in always starts a new session (a session id from before sign-in is never reused).
struct SignInPages: Sendable {
    let access: AccessControl
    let throttle: SignInThrottle
    let sessionLifetimeSeconds: Int
    let users = UserStore()
    let audit = AuditLog()

    static let signInCookie = "herald_signin"

    init(access: AccessControl, configuration: HeraldConfiguration) {
        self.access = access
        throttle = SignInThrottle(maxFailures: configuration.signInMaxFailures, windowSeconds: configuration.signInWindowSeconds)
        sessionLifetimeSeconds = configuration.sessionLifetimeSeconds
    }

    func register(on router: inout Router) {
        router.add(.get, "/sign-in", access.open(form))
        router.add(.post, "/sign-in", access.open(signIn))
        router.add(.post, "/sign-out", access.page(.viewer, signOut))
    }

    func form(_ request: HTTPRequest) -> HTTPResponse {
        let next = AccessControl.safeNext(request.queryItems.first { $0.name == "next" }?.value)
        return render(next: next, email: "", error: nil, status: 200)
    }

    func signIn(_ request: HTTPRequest) -> HTTPResponse {
        let email = (request.formField("email") ?? "").trimmingSpaces
        let password = request.formField("password") ?? ""
        let next = AccessControl.safeNext(request.formField("next"))
        let address = request.clientAddress
        guard let cookie = request.cookie(Self.signInCookie), let sent = request.formField(AccessControl.csrfField),
              !cookie.isEmpty, Secrets.constantTimeEqual(cookie, sent) else {
            return render(next: next, email: email, error: "The sign-in form expired. Please try again.", status: 403)
        }
        guard !email.isEmpty, !password.isEmpty, email.utf8.count <= 320, password.utf8.count <= 1024 else {
            return render(next: next, email: email, error: "Enter your e-mail address and password.", status: 400)
        }
        do {
            return try access.pool.withConnection { connection in
                if try throttle.isLocked(email: email, address: address, on: connection) {
                    // Logged, not audited: a locked account under attack would otherwise fill the audit log.
                    access.log.warning("sign-in refused: too many failures", ["email": .string(email), "address": .string(address)])
                    let minutes = max(1, (throttle.windowSeconds + 59) / 60)
                    return render(next: next, email: email,
                                  error: "Too many failed sign-ins. Try again in up to \(minutes) minute\(minutes == 1 ? "" : "s").",
                                  status: 429)
                }
                let found = try users.credentials(email: email, on: connection)
                // Hash even for an unknown e-mail, so the answer's timing does not reveal which accounts exist.
                let matches = PasswordHash.verify(password, against: found?.passwordHash ?? PasswordHash.decoy)
                guard let user = found?.user, matches, !user.disabled else {
                    try throttle.recordFailure(email: email, address: address, on: connection)
                    access.log.warning("sign-in failed", ["email": .string(email), "address": .string(address)])
                    try audit.record("sign_in.failed", by: nil, actor: email, request: request, on: connection)
                    return render(next: next, email: email, error: "That e-mail address and password do not match.", status: 401)
                }
                try throttle.clear(email: email, on: connection)
                if let old = request.cookie(AccessControl.sessionCookie) {
                    try access.sessions.delete(sessionID: old, on: connection)
                }
                let session = try access.sessions.create(userID: user.id, on: connection)
                let viewer = Viewer(userID: user.id, email: user.email, role: user.role, csrfToken: session.csrfToken)
                try audit.record("sign_in.succeeded", by: viewer, request: request, on: connection)
                access.log.info("signed in", ["email": .string(user.email), "address": .string(address)])
                return PageRenderer.redirect(to: next, headers: [
                    ("Set-Cookie", sessionCookie(session.id, maxAge: sessionLifetimeSeconds)),
                    ("Set-Cookie", "\(Self.signInCookie)=; Path=/sign-in; HttpOnly; SameSite=Strict; Max-Age=0"),
                ])
            }
        } catch {
            access.log.error("sign-in failed on the database: \(error)", request: request)
            return render(next: next, email: email, error: "Herald cannot reach its database right now; try again shortly.", status: 503)
        }
    }

    func signOut(_ request: HTTPRequest, _ viewer: Viewer) -> HTTPResponse {
        do {
            try access.pool.withConnection { connection in
                if let id = request.cookie(AccessControl.sessionCookie) { try access.sessions.delete(sessionID: id, on: connection) }
                try audit.record("sign_out", by: viewer, request: request, on: connection)
            }
        } catch {
            access.log.error("sign-out failed on the database: \(error)", request: request)
        }
        return PageRenderer.redirect(to: "/sign-in", headers: [("Set-Cookie", sessionCookie("", maxAge: 0))])
    }

    func sessionCookie(_ value: String, maxAge: Int) -> String {
        "\(AccessControl.sessionCookie)=\(value); Path=/; HttpOnly; SameSite=Lax; Max-Age=\(maxAge)" + (access.cookieSecure ? "; Secure" : "")
    }

    /// The form, with a fresh double-submit token in the page and its cookie.
    func render(next: String, email: String, error: String?, status: Int) -> HTTPResponse {
        let token = Secrets.token()
        var context: [String: Any] = ["next": next, "email": email, "csrf_token": token]
        if let error { context["error"] = error }
        var response = access.pages.page("sign-in", context, status: status)
        response.headers.add("Set-Cookie", "\(Self.signInCookie)=\(token); Path=/sign-in; HttpOnly; SameSite=Strict; Max-Age=3600"
                                + (access.cookieSecure ? "; Secure" : ""))
        return response
    }
}

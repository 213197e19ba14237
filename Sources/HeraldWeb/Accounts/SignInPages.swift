import HeraldCrypto
import HeraldApp
import HeraldHTTP

/// `GET/POST /sign-in` and `POST /sign-out`.
///
/// The sign-in form is protected against login CSRF by a double-submit token: `GET` sets a random
/// cookie `herald_signin` (for `/sign-in` only) and puts the same value in the form. A successful
/// sign-in always starts a new session (a session id from before sign-in is never reused).
struct SignInPages: Sendable {
    let service: SignInService
    let pages: PageRenderer
    let cookieSecure: Bool

    static let signInCookie = "herald_signin"

    func form(_ context: RequestContext) -> HTTPResponse {
        render(next: Authentication.safeNext(context.query("next")), email: "", error: nil, status: 200, words: context.words)
    }

    func signIn(_ context: RequestContext) -> HTTPResponse {
        let words = context.words
        let request = context.request
        let email = (context.form.value("email") ?? "").trimmingSpaces
        let password = context.form.value("password") ?? ""
        let next = Authentication.safeNext(context.form.value("next"))
        if context.formError != nil {
            return render(next: next, email: "", error: words.text("signin.enter"), status: 400, words: words)
        }
        guard let cookie = request.cookie(Self.signInCookie), let sent = context.form.value(Authentication.csrfField),
              !cookie.isEmpty, ConstantTime.equal(cookie, sent) else {
            return render(next: next, email: email, error: words.text("signin.expired"), status: 403, words: words)
        }
        guard !email.isEmpty, !password.isEmpty, email.utf8.count <= 320, password.utf8.count <= 1024 else {
            return render(next: next, email: email, error: words.text("signin.enter"), status: 400, words: words)
        }
        do {
            let signedIn = try service.signIn(email: email, password: password, address: context.clientAddress,
                                              previousSession: request.cookie(cookieName).flatMap(SessionID.init(cookie:)))
            return PageRenderer.redirect(to: next, headers: [
                ("Set-Cookie", sessionCookie(signedIn.sessionID.cookieValue, maxAge: service.sessionLifetimeSeconds)),
                ("Set-Cookie", "\(Self.signInCookie)=; Path=/sign-in; HttpOnly; SameSite=Strict; Max-Age=0"),
            ])
        } catch AppError.notAllowed {
            // The service's only refusal here is the mismatch, said alike for an unknown address.
            return render(next: next, email: email, error: words.text("signin.mismatch"), status: 401, words: words)
        } catch AppError.rateLimited(let message, let seconds) {
            return render(next: next, email: email, error: words.message(.rateLimited(message, retryAfterSeconds: seconds)), status: 429, words: words)
        } catch {
            context.log.error("sign-in failed on the database: \(error)")
            return render(next: next, email: email, error: words.text("signin.database"), status: 503, words: words)
        }
    }

    func signOut(_ context: RequestContext) -> HTTPResponse {
        do {
            try service.signOut(sessionID: context.request.cookie(cookieName).flatMap(SessionID.init(cookie:)), by: context.actor)
        } catch {
            context.log.error("sign-out failed on the database: \(error)")
        }
        return PageRenderer.redirect(to: "/sign-in", headers: [("Set-Cookie", sessionCookie("", maxAge: 0))])
    }

    func sessionCookie(_ value: String, maxAge: Int) -> String {
        "\(cookieName)=\(value); Path=/; HttpOnly; SameSite=Lax; Max-Age=\(maxAge)" + (cookieSecure ? "; Secure" : "")
    }

    var cookieName: String { Authentication.sessionCookieName(secure: cookieSecure) }

    /// The form, with a fresh double-submit token in the page and its cookie.
    func render(next: String, email: String, error: String?, status: Int, words: Localized) -> HTTPResponse {
        let token = SecureRandom.token()
        var response = pages.page(SignInView(next: next, email: email, csrfToken: token, error: error, words: words), status: status)
        response.headers.add("Set-Cookie", "\(Self.signInCookie)=\(token); Path=/sign-in; HttpOnly; SameSite=Strict; Max-Age=3600"
                                + (cookieSecure ? "; Secure" : ""))
        return response
    }
}

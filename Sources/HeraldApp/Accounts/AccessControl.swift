import HeraldHTTP
import HeraldJSON
import HeraldPostgres

/// The one gate every route goes through. Each route is registered with one of `page`, `api`,
/// `events` or `open`; the access test walks the router and fails on a route it has no decision for.
///
/// - Pages use the browser session (cookie `herald_session`): none → 303 to sign-in and back;
///   role too low → a 403 page; a state-changing request must carry the session's CSRF token.
/// - APIs take `Authorization: Bearer <api key>` or a session cookie plus `X-CSRF-Token` on unsafe
///   methods; none → 401 problem+json with `WWW-Authenticate: Bearer`; role too low → 403 problem+json.
struct AccessControl: Sendable {
    let pool: PostgresPool
    let log: Log
    let sessions: SessionStore
    let keys = APIKeyStore()
    let cookieSecure: Bool
    let trustForwardedFor: Bool
    let pages = PageRenderer()

    static let sessionCookie = "herald_session"
    static let csrfField = "csrf_token"
    static let csrfHeader = "X-CSRF-Token"

    init(pool: PostgresPool, log: Log, configuration: HeraldConfiguration) {
        self.pool = pool
        self.log = log
        sessions = SessionStore(idleSeconds: configuration.sessionIdleSeconds,
                                lifetimeSeconds: configuration.sessionLifetimeSeconds)
        cookieSecure = configuration.cookieSecure
        trustForwardedFor = configuration.trustForwardedFor
    }

    /// A browser page for `minimum` and above.
    func page(_ minimum: Role, _ handler: @escaping @Sendable (HTTPRequest, Viewer) -> HTTPResponse) -> HTTPHandler {
        { request in
            let request = resolved(request)
            let viewer: Viewer?
            do {
                viewer = try sessionViewer(request)
            } catch {
                log.warning("session lookup failed: \(error)", request: request)
                return pages.page("access-denied", ["heading": "Herald is unavailable",
                                                    "message": "The database cannot be reached right now; try again shortly."], status: 503)
            }
            guard let viewer else {
                let next = request.method == .get || request.method == .head ? request.target : "/"
                return PageRenderer.redirect(to: "/sign-in?next=" + Self.percentEncoded(next))
            }
            guard viewer.role >= minimum else {
                return forbiddenPage(viewer, "This page needs the \(minimum.rawValue) role; you are signed in as \(viewer.role.rawValue).")
            }
            if request.isUnsafeMethod && !Self.carriesCSRFToken(request, of: viewer) {
                log.warning("CSRF token missing or wrong", request: request)
                return forbiddenPage(viewer, "The form was missing its security token or it had expired. Go back, reload the page and try again.")
            }
            return handler(request, viewer)
        }
    }

    /// A REST endpoint for `minimum` and above (keys of the `events` scope are refused).
    func api(_ minimum: Role, _ handler: @escaping @Sendable (HTTPRequest, Viewer) throws -> APIResponse) -> HTTPHandler {
        apiHandler(log) { request in
            let request = resolved(request)
            let viewer = try apiViewer(request)
            guard viewer.scope != .events else {
                throw Self.forbidden("This API key has the events scope: it may only post to /api/v1/events.")
            }
            guard viewer.role >= minimum else {
                throw Self.forbidden("This needs the \(minimum.rawValue) role; the caller has \(viewer.role.rawValue).")
            }
            return try handler(request, viewer)
        }
    }

    /// `POST /api/v1/events`: a key of the `events` scope, or any editor-and-above caller.
    func events(_ handler: @escaping @Sendable (HTTPRequest, Viewer) throws -> APIResponse) -> HTTPHandler {
        apiHandler(log) { request in
            let request = resolved(request)
            let viewer = try apiViewer(request)
            guard viewer.scope == .events || viewer.role >= .editor else {
                throw Self.forbidden("Posting events needs a key of the events scope or the editor role.")
            }
            return try handler(request, viewer)
        }
    }

    /// A deliberately public route (health, static files, the sign-in page, uploaded images).
    func open(_ handler: @escaping HTTPHandler) -> HTTPHandler {
        guard trustForwardedFor else { return handler }
        return { request in handler(resolved(request)) }
    }

    /// The request with `remoteAddress` set to the client's (the last `X-Forwarded-For` entry)
    /// when Herald is configured to trust its proxy; rate limits and the audit log read it.
    func resolved(_ request: HTTPRequest) -> HTTPRequest {
        guard trustForwardedFor, let forwarded = request.headers.values(for: "X-Forwarded-For").last?
            .split(separator: ",").last?.trimmingSpaces, !forwarded.isEmpty, forwarded.utf8.count <= 64 else { return request }
        var request = request
        request.remoteAddress = forwarded.contains(":") ? "[\(forwarded)]:0" : "\(forwarded):0"
        return request
    }

    // MARK: - Who is asking

    /// The signed-in user of the request's session cookie, if any and live.
    func sessionViewer(_ request: HTTPRequest) throws -> Viewer? {
        guard let id = request.cookie(Self.sessionCookie), !id.isEmpty, id.utf8.count < 128 else { return nil }
        return try pool.withConnection { try sessions.viewer(sessionID: id, on: $0) }
    }

    /// The caller of a REST request: an API key, else a session (with its CSRF header on unsafe methods).
    func apiViewer(_ request: HTTPRequest) throws -> Viewer {
        if let token = request.bearerToken {
            guard let viewer = try pool.withConnection({ try keys.viewer(key: token, on: $0) }) else {
                log.warning("rejected API key", request: request)
                throw Self.unauthorized("The API key is not valid or has been revoked.", invalidToken: true)
            }
            return viewer
        }
        if let viewer = try sessionViewer(request) {
            if request.isUnsafeMethod && !Self.carriesCSRFToken(request, of: viewer) {
                throw Self.forbidden("A request with a session cookie must carry the session's CSRF token in \(Self.csrfHeader).",
                                     code: "csrf_token_invalid")
            }
            return viewer
        }
        throw Self.unauthorized("Send an API key as Authorization: Bearer <key>.", invalidToken: false)
    }

    /// Whether the request carries `viewer`'s CSRF token (form field or header), compared in constant time.
    static func carriesCSRFToken(_ request: HTTPRequest, of viewer: Viewer) -> Bool {
        guard let expected = viewer.csrfToken, !expected.isEmpty else { return false }
        let sent = request.headers[csrfHeader] ?? request.formField(csrfField) ?? ""
        return Secrets.constantTimeEqual(sent, expected)
    }

    // MARK: - Answers

    static func unauthorized(_ detail: String, invalidToken: Bool) -> Problem {
        Problem(status: 401, code: "unauthorized", title: "Authentication required", detail: detail,
                headers: [("WWW-Authenticate", invalidToken ? "Bearer realm=\"herald\", error=\"invalid_token\"" : "Bearer realm=\"herald\"")])
    }

    static func forbidden(_ detail: String, code: String = "forbidden") -> Problem {
        Problem(status: 403, code: code, title: "Forbidden", detail: detail)
    }

    func forbiddenPage(_ viewer: Viewer, _ message: String) -> HTTPResponse {
        var context = viewer.layoutContext
        context["heading"] = "Not allowed"
        context["message"] = message
        return pages.page("access-denied", context, status: 403)
    }

    /// Percent-encodes everything but unreserved characters and `/`, for a `next` query value.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7a) || "-._~/".unicodeScalars.contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// `next` made safe: a local absolute path only (no scheme, no `//host`, no backslashes), else `/`.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"),
              next.utf8.count <= 2048, next.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7f }) else { return "/" }
        return next
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

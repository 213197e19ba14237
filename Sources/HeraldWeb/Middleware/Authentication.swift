import HeraldCrypto
import HeraldApp
import HeraldHTTP

/// Decides the route's `Access` rule: finds the viewer (session cookie or API key), checks the
/// role and scope, and the CSRF token of a state-changing request (from the form parsed once, or
/// the `X-CSRF-Token` header). A page without a session answers a redirect to sign-in; every
/// other refusal is thrown and rendered by the route's face.
struct Authentication: Sendable {
    let authenticator: Authenticator
    /// Refused API keys are logged once a minute at most, with the count held back.
    let rejectedKeyLog = LogThrottle(interval: .seconds(60))

    static let sessionCookie = "herald_session"
    /// Behind TLS the cookie takes the `__Host-` prefix: browsers then keep it only if it is
    /// Secure, for this host alone and the whole path, so no subdomain can set or shadow it.
    static let hostOnlySessionCookie = "__Host-herald_session"

    static func sessionCookieName(secure: Bool) -> String { secure ? hostOnlySessionCookie : sessionCookie }

    /// The session cookie's name on this server.
    let sessionCookieName: String
    static let csrfField = "csrf_token"
    static let csrfHeader = "X-CSRF-Token"

    /// nil to go on to the handler, or the answer to give instead (the sign-in redirect).
    func authenticate(_ context: inout RequestContext, _ access: Access) throws -> HTTPResponse? {
        switch access {
        case .open:
            return nil
        case .page(let minimum):
            guard let viewer = try sessionViewer(context.request) else {
                let request = context.request
                let next = request.method == .get || request.method == .head ? request.target : "/"
                return PageRenderer.redirect(to: "/sign-in?next=" + PercentEncoding.encode(next, keeping: "/"))
            }
            context.viewer = viewer
            // From here the page is in the viewer's language, its refusals included.
            AnswerLanguage.choose(&context, face: .page)
            let words = context.words
            guard viewer.role >= minimum else {
                throw AppError.notAllowed(words.text("access.needs_role", words.text("role.\(minimum.rawValue)"), words.text("role.\(viewer.role.rawValue)")))
            }
            // A form refused as too large was never read, so it shows no token: it reaches no
            // handler either, as `FormRefusal` answers it in the viewer's language.
            if context.request.isUnsafeMethod && !context.formTooLarge && !Self.carriesCSRFToken(context, of: viewer) {
                context.log.warning("CSRF token missing or wrong")
                // A form that could not be read has no token either: say what was wrong with it.
                if let problem = context.formError {
                    throw AppError.invalidField("form", "The form could not be read: \(problem).", code: "malformed_form", title: "The form could not be read")
                }
                throw AppError.notAllowed(words.text("access.csrf"))
            }
            return nil
        case .api(let minimum):
            let viewer = try apiViewer(&context)
            switch viewer.scope {
            case .events: throw Self.forbidden("This API key has the events scope: it may only post to /api/v1/events.")
            case .devices: throw Self.forbidden("This API key has the devices scope: it may only register and forget devices (PUT and DELETE /api/v1/devices/{token}, POST /api/v1/device-imports).")
            case .sends: throw Self.forbidden("This API key has the sends scope: it may only make one-call sends and read them (POST /api/v1/sends, GET /api/v1/sends/{id}).")
            case .full, nil: break
            }
            guard viewer.role >= minimum else {
                throw Self.forbidden("This needs the \(minimum.rawValue) role; the caller has \(viewer.role.rawValue).")
            }
            return nil
        case .events:
            let viewer = try apiViewer(&context)
            guard viewer.scope == .events || (viewer.scope == .full || viewer.scope == nil) && viewer.role >= .editor else {
                throw Self.forbidden("Posting events needs a key of the events scope or the editor role.")
            }
            return nil
        case .devices:
            let viewer = try apiViewer(&context)
            guard viewer.scope == .devices || (viewer.scope == .full || viewer.scope == nil) && viewer.role >= .editor else {
                throw Self.forbidden("Registering devices needs a key of the devices scope or the editor role.")
            }
            return nil
        case .sends:
            let viewer = try apiViewer(&context)
            guard viewer.scope == .sends && viewer.role >= .publisher || (viewer.scope == .full || viewer.scope == nil) && viewer.role >= .publisher else {
                throw Self.forbidden("One-call sends need the publisher role, with a key of the sends or full scope.")
            }
            return nil
        }
    }

    /// The signed-in user of the request's session cookie, if any and live.
    func sessionViewer(_ request: HTTPRequest) throws -> Viewer? {
        guard let id = request.cookie(sessionCookieName).flatMap(SessionID.init(cookie:)) else { return nil }
        return try authenticator.viewer(sessionID: id)
    }

    /// The caller of a REST request: an API key, else a session (with its CSRF header on unsafe methods).
    func apiViewer(_ context: inout RequestContext) throws -> Viewer {
        if let token = context.request.bearerToken {
            guard let viewer = try authenticator.viewer(apiKey: token) else {
                if let heldBack = rejectedKeyLog.permit() {
                    context.log.warning("rejected API key", ["similar_lines_held_back": .number(Double(heldBack))])
                }
                throw Self.unauthorized("The API key is not valid or has been revoked.", invalidToken: true)
            }
            context.viewer = viewer
            return viewer
        }
        if let viewer = try sessionViewer(context.request) {
            if context.request.isUnsafeMethod && !Self.carriesCSRFToken(context, of: viewer) {
                throw Self.forbidden("A request with a session cookie must carry the session's CSRF token in \(Self.csrfHeader).",
                                     code: "csrf_token_invalid")
            }
            context.viewer = viewer
            return viewer
        }
        throw Self.unauthorized("Send an API key as Authorization: Bearer <key>.", invalidToken: false)
    }

    /// Whether the request carries `viewer`'s CSRF token (header, or the parsed form's field), compared in constant time.
    static func carriesCSRFToken(_ context: RequestContext, of viewer: Viewer) -> Bool {
        guard let expected = viewer.csrfToken, !expected.isEmpty else { return false }
        let sent = context.request.headers[csrfHeader] ?? context.form.value(csrfField) ?? ""
        return ConstantTime.equal(sent, expected)
    }

    static func unauthorized(_ detail: String, invalidToken: Bool) -> Problem {
        Problem(status: 401, code: "unauthorized", title: "Authentication required", detail: detail,
                headers: [("WWW-Authenticate", invalidToken ? "Bearer realm=\"herald\", error=\"invalid_token\"" : "Bearer realm=\"herald\"")])
    }

    static func forbidden(_ detail: String, code: String = "forbidden") -> Problem {
        Problem(status: 403, code: code, title: "Forbidden", detail: detail)
    }

    /// `next` made safe: a local absolute path only (no scheme, no `//host`, no backslashes), else `/`.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"),
              next.utf8.count <= 2048, next.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7f }) else { return "/" }
        return next
    }
}

extension Authentication: Middleware {
    /// The route's `Access` decided: the viewer found, or the answer given instead (the sign-in
    /// redirect), or the refusal thrown.
    func handle(_ context: inout RequestContext, _ route: Route,
                next: (inout RequestContext) throws -> HTTPResponse) throws -> HTTPResponse {
        if let answer = try authenticate(&context, route.access) { return answer }
        return try next(&context)
    }
}

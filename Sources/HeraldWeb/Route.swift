import HeraldApp
import HeraldHTTP

/// Who may reach a route. Every route in `Routes` names one; the access test walks the table.
///
/// - `page(role)`: a browser session of `role` or above; none → 303 to sign-in and back; a role
///   too low → a 403 page; a state-changing request must carry the session's CSRF token.
/// - `api(role)`: `Authorization: Bearer <api key>` or a session cookie plus `X-CSRF-Token` on
///   unsafe methods; none → 401 with `WWW-Authenticate: Bearer`; keys of the `events` scope refused.
/// - `events`: a key of the `events` scope, or any caller with the editor role.
/// - `open`: deliberately public (health, static files, the sign-in page, uploaded images).
enum Access: Sendable, Equatable {
    case open
    case page(Role)
    case api(Role)
    case events
    /// Registering and forgetting devices: a `devices`-scope key, or the editor role and above.
    case devices
    /// One-call sends: the publisher role, with a key of the `sends` (or full) scope.
    case sends
}

/// Which of the two error renderers answers a route's failures.
enum Face: Sendable {
    /// problem+json (`ProblemRenderer`).
    case api
    /// An HTML error page (`ErrorPageRenderer`).
    case page
}

/// One entry of the route table: its access rule, its face, and its handler.
struct Route: Sendable {
    let access: Access
    let face: Face
    /// Answered on the event loop, never queued behind the handler threads: only for handlers that
    /// cannot block (no database, no lock held long), such as the liveness probe.
    var onLoop = false
    /// Set for routes whose body is read as it arrives instead of held whole (imports): the
    /// most it may carry. Their handlers read `context.request.bodyStream`.
    var streamedBodyLimit: Int?
    /// Set for the pages whose form takes an image upload: a form body over the server's limit is
    /// read as it arrives, up to this, so that the page can refuse the image beside its field.
    var formBodyLimit: Int?
    /// Runs on the handlers for long waits (another service, password hashing, a large file), not
    /// on the few quick handlers that answer the routes doing short database work.
    var slow = false
    let handler: @Sendable (RequestContext) throws -> HTTPResponse

    init(access: Access, face: Face, handler: @escaping @Sendable (RequestContext) throws -> HTTPResponse) {
        self.access = access
        self.face = face
        self.handler = handler
    }

    /// This route, answered on the event loop.
    func onEventLoop() -> Route {
        var route = self
        route.onLoop = true
        return route
    }

    /// This route, on the handlers for long waits.
    func onSlowHandlers() -> Route {
        var route = self
        route.slow = true
        return route
    }

    /// This route, reading bodies of up to `limit` bytes as they arrive.
    func streamingBody(upTo limit: Int) -> Route {
        var route = self
        route.streamedBodyLimit = limit
        return route
    }

    /// This page, taking a form with image uploads of up to `PostedForm.maximumUploadFormBytes`.
    func takingUploads() -> Route {
        var route = self
        route.formBodyLimit = PostedForm.maximumUploadFormBytes
        return route
    }

    /// A JSON endpoint.
    static func api(_ access: Access, _ handler: @escaping @Sendable (RequestContext) throws -> APIResponse) -> Route {
        Route(access: access, face: .api) { try handler($0).httpResponse }
    }

    /// A JSON-world endpoint that writes its own response (metrics text, files, images).
    static func raw(_ access: Access, _ handler: @escaping @Sendable (RequestContext) throws -> HTTPResponse) -> Route {
        Route(access: access, face: .api, handler: handler)
    }

    /// A browser page or form post.
    static func page(_ access: Access, _ handler: @escaping @Sendable (RequestContext) throws -> HTTPResponse) -> Route {
        Route(access: access, face: .page, handler: handler)
    }
}

import HeraldApp
import HeraldHTTP

/// Herald's HTTP face: a request reads as one straight line through it —
/// observation (request id, metrics, access log) → the route matched once → `chain`: proxy
/// trust → the answer's language → the face's error renderer → the body parsed once →
/// authentication and CSRF (the route's `Access`) → the viewer's language → a form over its
/// upload limit refused → handler → service.
struct WebApplication: Sendable {
    let routes: RouteTable<Route>
    let observation: Observation
    let proxyTrust: ProxyTrust
    let chain: MiddlewareChain
    let log: Log
    /// The server's body limit: a form within it is held whole, whatever its route.
    let maxBodyBytes: Int
    /// The session cookie's name (host-only when cookies are secure): a form past the server's body limit is read only with one.
    let sessionCookieName: String

    init(app: HeraldApplication, settings: WebSettings, pages: PageRenderer = PageRenderer()) {
        let handlers = Handlers(app: app, settings: settings, pages: pages)
        sessionCookieName = Authentication.sessionCookieName(secure: settings.cookieSecure)
        routes = Routes.table(handlers, settings: settings)
        observation = Observation(log: app.log, metrics: app.metrics)
        proxyTrust = ProxyTrust(trustForwardedHeaders: settings.trustForwardedFor, publicURL: settings.publicURL)
        chain = MiddlewareChain(links: [
            proxyTrust,
            AnswerLanguage.Negotiated(),
            ErrorRendering(pages: pages),
            BodyParsing(),
            Authentication(authenticator: app.authenticator, sessionCookieName: sessionCookieName),
            AnswerLanguage.Chosen(),
            FormRefusal(),
        ])
        log = app.log
        maxBodyBytes = settings.maxBodyBytes
    }

    func respond(_ request: HTTPRequest) -> HTTPResponse {
        answer(request, routes.match(request))
    }

    /// How much of a request's body its route reads as it arrives (nil: the body is held whole).
    /// A form is parsed before the handler runs, for its CSRF token, so it is held whole; only a
    /// form over the server's body limit, on a page that takes image uploads, arrives as a
    /// stream, up to the page's own limit (`BodyParsing` reads it whole), so that the page itself
    /// says what was too large, in the user's language, instead of the server's bare 413.
    func streamedBodyLimit(_ head: HTTPRequest) -> Int? {
        guard case .found(let route, _, _, _) = routes.match(head.method, path: head.path) else { return nil }
        guard PostedForm.isForm(head) else { return route.streamedBodyLimit }
        guard let limit = route.formBodyLimit else { return nil }
        // Only a signed-in browser's form is read past the server's limit: without a session the
        // answer is the sign-in page whatever the form holds, and 16 MB would be read for it.
        guard head.cookie(sessionCookieName) != nil else { return nil }
        if let length = head.headers["Content-Length"].flatMap({ Int($0) }), length <= maxBodyBytes { return nil }
        return limit
    }

    /// Where a request goes, from one lookup of its route: answered here on the event loop (a
    /// route that cannot block), to the handlers for long waits (a route that says so, or streams
    /// its body), or to the quick handlers (everything else, including paths no route matches).
    /// The route found is noted on the request, so the handler does not look it up again.
    func dispatch(_ request: inout HTTPRequest) -> LoopDecision {
        let match = routes.match(noting: &request)
        guard case .found(let route, _, _, _) = match else { return .quickHandler }
        if route.onLoop { return .answered(answer(request, match)) }
        return route.slow || route.streamedBodyLimit != nil ? .handler : .quickHandler
    }

    private func answer(_ request: HTTPRequest, _ match: RouteTable<Route>.Match) -> HTTPResponse {
        observation.observe(request) { requestID in
            var context = RequestContext(
                request: request, requestID: requestID, clientAddress: request.remoteAddress,
                log: RequestLog(log: log, requestID: requestID, method: request.method.rawValue, path: request.path))
            switch match {
            case .found(let route, let parameters, let pattern, let headForGet):
                context.request.parameters = parameters
                var response = chain.run(&context, route)
                if headForGet { response.dropBodyForHead() }
                return (response, pattern, context.clientAddress)
            case .methodNotAllowed(let allowed):
                proxyTrust.apply(to: &context)
                let words = Localized(language: Language.negotiate(request.headers["Accept-Language"]))
                var response = Problem(status: 405, code: "method_not_allowed", title: "Method not allowed",
                                       detail: words.text("problem.method_not_allowed.detail", request.method.rawValue,
                                                          allowed.map(\.rawValue).joined(separator: ", "))).httpResponse(words)
                response.headers.set("Allow", allowed.map(\.rawValue).joined(separator: ", "))
                return (response, nil, context.clientAddress)
            case .notFound:
                proxyTrust.apply(to: &context)
                let words = Localized(language: Language.negotiate(request.headers["Accept-Language"]))
                let problem = Problem(status: 404, code: "not_found", title: "Not found", detail: words.text("problem.not_found.path", request.path))
                return (problem.httpResponse(words), nil, context.clientAddress)
            }
        }
    }
}

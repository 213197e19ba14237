/// Maps method and path to a handler.
///
/// Patterns are literal segments, `{name}` parameters and a final `{name...}` wildcard; matched
/// parameters land in `request.parameters`, percent-decoded (a wildcard value may then contain
/// `/` or `..`, so a file handler must check it). A path no route matches gets `notFound`; a path
/// that only other methods match gets `methodNotAllowed` with an `Allow` header. HEAD is served
/// by the GET route with the body dropped and its `Content-Length` kept (RFC 9110 §9.3.2).
public struct Router: Sendable {
    private struct Route: Sendable {
        let method: HTTPMethod
        let pattern: RoutePattern
        let handler: HTTPHandler
    }

    private var table: [Route] = []

    /// Answers a path that no route matches. Default: 404 with a short text body.
    public var notFound: HTTPHandler = { _ in HTTPResponse(status: 404, text: "not found\n") }

    /// Answers a path that routes match under other methods, given those methods. The router
    /// sets `Allow` on whatever this returns. Default: 405 with a short text body.
    public var methodNotAllowed: @Sendable (HTTPRequest, [HTTPMethod]) -> HTTPResponse = { _, _ in
        HTTPResponse(status: 405, text: "method not allowed\n")
    }

    /// An empty router.
    public init() {}

    /// Adds a route. A later route with the same method and pattern replaces nothing: the first wins.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping HTTPHandler) {
        table.append(Route(method: method, pattern: RoutePattern(pattern), handler: handler))
    }

    /// Every route, in the order added (for tests that walk them all).
    public var routes: [(method: HTTPMethod, pattern: String)] { table.map { ($0.method, $0.pattern.text) } }

    /// Finds the route for `request` and runs it.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        route(request).response
    }

    /// Runs the request like `handle`, and says which pattern answered it (nil for 404 and 405),
    /// so metrics can count requests by route without a label per distinct path.
    public func route(_ request: HTTPRequest) -> (response: HTTPResponse, pattern: String?) {
        let segments = RoutePattern.split(request.path)
        var best: (route: Route, parameters: [String: String])?
        var bestForGet: (route: Route, parameters: [String: String])?
        var allowed: [HTTPMethod] = []
        for route in table {
            guard let parameters = route.pattern.match(segments) else { continue }
            if !allowed.contains(route.method) { allowed.append(route.method) }
            if route.method == request.method && isBetter(route, than: best?.route) { best = (route, parameters) }
            if route.method == .get && isBetter(route, than: bestForGet?.route) { bestForGet = (route, parameters) }
        }
        var request = request
        if let best {
            request.parameters = best.parameters
            return (best.route.handler(request), best.route.pattern.text)
        }
        if request.method == .head, let get = bestForGet {
            request.parameters = get.parameters
            var response = get.route.handler(request)
            response.headers.set("Content-Length", String(response.body.count))
            response.body = []
            return (response, get.route.pattern.text)
        }
        if allowed.isEmpty { return (notFound(request), nil) }
        if allowed.contains(.get) && !allowed.contains(.head) { allowed.append(.head) }
        var response = methodNotAllowed(request, allowed)
        response.headers.set("Allow", allowed.map(\.rawValue).joined(separator: ", "))
        return (response, nil)
    }

    private func isBetter(_ route: Route, than current: Route?) -> Bool {
        guard let current else { return true }
        return route.pattern.specificity.lexicographicallyPrecedes(current.pattern.specificity) == false
            && route.pattern.specificity != current.pattern.specificity
    }
}

/// Maps method and path to a handler (a `RouteTable` of handlers that also runs them).
///
/// A path no route matches gets `notFound`; a path that only other methods match gets
/// `methodNotAllowed` with an `Allow` header. HEAD is served by the GET route with the body
/// dropped and its `Content-Length` kept (RFC 9110 §9.3.2).
public struct Router: Sendable {
    private var table = RouteTable<HTTPHandler>()

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
        table.add(method, pattern, handler)
    }

    /// Every route, in the order added (for tests that walk them all).
    public var routes: [(method: HTTPMethod, pattern: String)] { table.routes.map { ($0.method, $0.pattern) } }

    /// Finds the route for `request` and runs it.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        route(request).response
    }

    /// Runs the request like `handle`, and says which pattern answered it (nil for 404 and 405),
    /// so metrics can count requests by route without a label per distinct path.
    public func route(_ request: HTTPRequest) -> (response: HTTPResponse, pattern: String?) {
        var request = request
        switch table.match(request.method, path: request.path) {
        case .found(let handler, let parameters, let pattern, let headForGet):
            request.parameters = parameters
            var response = handler(request)
            if headForGet { response.dropBodyForHead() }
            return (response, pattern)
        case .methodNotAllowed(let allowed):
            var response = methodNotAllowed(request, allowed)
            response.headers.set("Allow", allowed.map(\.rawValue).joined(separator: ", "))
            return (response, nil)
        case .notFound:
            return (notFound(request), nil)
        }
    }
}

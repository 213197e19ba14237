/// A complete request as the parser produced it, plus what the server and router add
/// (`remoteAddress`, `parameters`).
public struct HTTPRequest: Sendable {
    /// The method token.
    public var method: HTTPMethod
    /// The request-target exactly as sent (RFC 9112 §3.2), e.g. `/a%20b?x=1`.
    public var target: String
    /// The path of the target without its query, still percent-encoded. For an absolute-form
    /// target (`http://host/p`) it is the path part (`/p`).
    public var path: String
    /// The raw query after `?`, or nil when the target has none.
    public var query: String?
    /// The header fields in the order received.
    public var headers: HTTPHeaders
    /// The body, de-chunked when it came chunked; empty when it is streamed.
    public var body: [UInt8]
    /// The body as it arrives, when the server's `BodyStreamingRule` streams this request's.
    public var bodyStream: RequestBodyStream?
    /// Route parameters (`{id}` → `"id"`), percent-decoded; filled in by `Router`.
    public var parameters: [String: String]
    /// The route-table entry a dispatch rule found for this request (`RouteTable.match(noting:)`),
    /// so that its handler does not look the route up a second time.
    public var routeEntry: Int?
    /// The peer's address as `ip:port`; filled in by the server.
    public var remoteAddress: String
    /// Whether the connection may carry another request after this one (RFC 9112 §9.3).
    public var keepAlive: Bool
    /// An HTTP/1.0 request: a kept-alive connection must then be confirmed with
    /// `Connection: keep-alive` (RFC 9112 §9.3, appendix C.2.2).
    var isHTTP10 = false

    /// A request; `path` and `query` are derived from `target`.
    public init(
        method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String = "", keepAlive: Bool = true
    ) {
        self.method = method
        self.target = target
        var utf8 = Array(target.utf8)
        if utf8.isEmpty { utf8 = [UInt8(ascii: "/")] }
        (self.path, self.query) = utf8.withUnsafeBufferPointer { RequestHead.splitTarget($0, 0, $0.count) }
        self.headers = headers
        self.body = body
        self.parameters = [:]
        self.remoteAddress = remoteAddress
        self.keepAlive = keepAlive
    }

    /// The parser's initialiser: path and query were already split from the bytes.
    init(method: HTTPMethod, target: String, path: String, query: String?, headers: HTTPHeaders, keepAlive: Bool, isHTTP10: Bool) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.headers = headers
        self.body = []
        self.parameters = [:]
        self.remoteAddress = ""
        self.keepAlive = keepAlive
        self.isHTTP10 = isHTTP10
    }

    /// The query decoded as `application/x-www-form-urlencoded` pairs, in order.
    public var queryItems: [(name: String, value: String)] {
        guard let query else { return [] }
        return Self.decodeForm(Array(query.utf8))
    }
}

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
    /// The body, de-chunked when it came chunked.
    public var body: [UInt8]
    /// Route parameters (`{id}` → `"id"`), percent-decoded; filled in by `Router`.
    public var parameters: [String: String]
    /// The peer's address as `ip:port`; filled in by the server.
    public var remoteAddress: String
    /// Whether the connection may carry another request after this one (RFC 9112 §9.3).
    public var keepAlive: Bool

    /// A request; `path` and `query` are derived from `target`.
    public init(
        method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String = "", keepAlive: Bool = true
    ) {
        self.method = method
        self.target = target
        (self.path, self.query) = Self.splitTarget(target)
        self.headers = headers
        self.body = body
        self.parameters = [:]
        self.remoteAddress = remoteAddress
        self.keepAlive = keepAlive
    }

    /// The parser's initialiser: path and query were already split from the bytes.
    init(method: HTTPMethod, target: String, path: String, query: String?, headers: HTTPHeaders, keepAlive: Bool) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.headers = headers
        self.body = []
        self.parameters = [:]
        self.remoteAddress = ""
        self.keepAlive = keepAlive
    }

    /// The query decoded as `application/x-www-form-urlencoded` pairs, in order.
    public var queryItems: [(name: String, value: String)] {
        guard let query else { return [] }
        return Self.decodeForm(Array(query.utf8))
    }

    /// Splits an origin-form or absolute-form target into path and query (RFC 9112 §3.2).
    static func splitTarget(_ target: String) -> (path: String, query: String?) {
        let bytes = Array(target.utf8)
        var pathStart = 0
        // absolute-form: skip "scheme://authority" so routing sees the path (RFC 9112 §3.2.2).
        if let first = bytes.first, first != UInt8(ascii: "/"), let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
           colon + 2 < bytes.count, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") {
            pathStart = bytes[(colon + 3)...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? bytes.count
        }
        let queryMark = bytes[pathStart...].firstIndex(of: UInt8(ascii: "?"))
        var path = String(decoding: bytes[pathStart..<(queryMark ?? bytes.count)], as: UTF8.self)
        if path.isEmpty && pathStart != 0 { path = "/" }
        let query = queryMark.map { String(decoding: bytes[($0 + 1)...], as: UTF8.self) }
        return (path, query)
    }
}

/// An outgoing HTTP request, as the sender and the token provider make them.
public struct HTTPClientRequest: Sendable {
    public var method: String
    public var url: String
    /// Header fields in order; libcurl writes them as given.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The whole exchange (connect, send, receive) must finish within this time.
    public var timeout: Duration

    public init(
        method: String = "POST",
        url: String,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        timeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A received HTTP response.
public struct HTTPClientResponse: Sendable {
    public var status: Int
    /// Header fields of the final response (not of an interim 1xx), in order.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The protocol the exchange used: HTTP/2 when the server offered it over TLS, else HTTP/1.1.
    public var httpVersion: HTTPVersion

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], httpVersion: HTTPVersion = .http1_1) {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
    }

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// The HTTP version of an exchange, as libcurl reports it.
public enum HTTPVersion: String, Sendable, Equatable {
    case http1_0 = "HTTP/1.0"
    case http1_1 = "HTTP/1.1"
    case http2 = "HTTP/2"
    case http3 = "HTTP/3"
    case unknown = "unknown"
}

/// A request that got no HTTP response: DNS, connect, TLS, timeout, a dropped connection.
/// The message is libcurl's error buffer when it said something, else `curl_easy_strerror`.
public struct HTTPTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libcurl's CURLcode (28 is a timeout, 7 a refused connection, 52 an empty reply).
    public let curlCode: Int
    public let message: String

    public init(curlCode: Int, message: String) {
        self.curlCode = curlCode
        self.message = message
    }

    public var description: String { "curl error \(curlCode): \(message)" }
}

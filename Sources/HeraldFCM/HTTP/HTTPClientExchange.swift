/// An outgoing HTTP request, as the sender and the token provider make them.
public struct HTTPClientRequest: Sendable {
    public var method: String
    public var url: String
    /// Header fields in order; libcurl writes them as given.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The whole exchange (connect, send, receive) must finish within this time.
    public var timeout: Duration
    /// The bytes of a response body kept (nil: no limit): beyond them the exchange ends, the rest
    /// unread, and the response stands as received with `bodyTruncated` set. For servers Herald
    /// does not trust to answer briefly, whose status matters and whose body need not be whole.
    public var maxResponseBytes: Int?
    /// Whether to refuse connecting to loopback, private and link-local addresses
    /// (`PrivateAddress`), checked after DNS on every address tried.
    public var refusePrivateAddresses: Bool

    public init(
        method: String = "POST",
        url: String,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        timeout: Duration = .seconds(30),
        maxResponseBytes: Int? = nil,
        refusePrivateAddresses: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.refusePrivateAddresses = refusePrivateAddresses
    }
}

/// A received HTTP response.
public struct HTTPClientResponse: Sendable {
    public var status: Int
    /// The header lines of the final response (not of an interim 1xx) as received, each ended by
    /// LF: kept as bytes and read on demand, since a sender at thousands of messages a second
    /// looks at one header (Retry-After) of a few answers.
    var headerLines: [UInt8] = []
    public var body: [UInt8]
    /// Whether the body was cut at the request's `maxResponseBytes`, the rest never read.
    public var bodyTruncated = false
    /// The protocol the exchange used: HTTP/2 when the server offered it over TLS, else HTTP/1.1.
    public var httpVersion: HTTPVersion

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], httpVersion: HTTPVersion = .http1_1) {
        self.status = status
        self.body = body
        self.httpVersion = httpVersion
        for (name, value) in headers { appendHeaderLine("\(name): \(value)".utf8) }
    }

    /// Header fields of the final response, in order.
    public var headers: [(name: String, value: String)] {
        headerLines.split(separator: 0x0A).compactMap { line in
            guard let colon = line.firstIndex(of: 0x3A) else { return nil }
            let value = line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
            return (String(decoding: line[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self))
        }
    }

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = Array(name.utf8)
        for line in headerLines.split(separator: 0x0A) {
            guard let colon = line.firstIndex(of: 0x3A), colon - line.startIndex == wanted.count,
                  zip(line[..<colon], wanted).allSatisfy({ asciiLowercased($0) == asciiLowercased($1) }) else { continue }
            return String(decoding: line[(colon + 1)...].drop { $0 == 0x20 || $0 == 0x09 }, as: UTF8.self)
        }
        return nil
    }

    /// Adds one header line (without its line end); a status line starts a new response's headers.
    mutating func appendHeaderLine<Line: Collection<UInt8>>(_ line: Line) {
        if line.starts(with: "HTTP/".utf8) {
            headerLines.removeAll(keepingCapacity: true)
        } else if line.contains(0x3A) {
            headerLines.append(contentsOf: line)
            headerLines.append(0x0A)
        }
    }
}

private func asciiLowercased(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }

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

import HeraldHTTP

/// Who the client is and which host it asked for. Behind a trusted proxy
/// (`HERALD_TRUST_FORWARDED_FOR`), the last `X-Forwarded-For` entry is the client and
/// `X-Forwarded-Host` the host; otherwise both headers are ignored, so a client cannot claim
/// another address (rate limits, the audit log) or another host (image URLs).
struct ProxyTrust: Sendable {
    let trustForwardedHeaders: Bool
    /// `HERALD_PUBLIC_URL`: when set, the one origin of every absolute URL Herald hands out.
    var publicURL: String? = nil

    func clientAddress(_ request: HTTPRequest) -> String {
        if trustForwardedHeaders, let forwarded = request.headers.values(for: "X-Forwarded-For").last?
            .split(separator: ",").last?.trimmingSpaces, !forwarded.isEmpty, forwarded.utf8.count <= 64 {
            return forwarded
        }
        return Self.address(withoutPort: request.remoteAddress)
    }

    func host(_ request: HTTPRequest) -> String {
        if trustForwardedHeaders, let forwarded = request.headers["X-Forwarded-Host"], !forwarded.isEmpty { return forwarded }
        return request.headers["Host"].flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
    }

    /// The scheme the client used: a trusted proxy's `X-Forwarded-Proto`, else http — Herald itself
    /// speaks plain HTTP and leaves TLS to the proxy in front of it.
    func scheme(_ request: HTTPRequest) -> String {
        if trustForwardedHeaders, let proto = request.headers["X-Forwarded-Proto"]?.split(separator: ",").first?.trimmingSpaces.lowercased(),
           proto == "https" || proto == "http" {
            return proto
        }
        return "http"
    }

    /// Where the client reaches Herald, for absolute URLs (an uploaded image's): `HERALD_PUBLIC_URL`
    /// when set, else the request's own scheme and host, so a plain-HTTP development server hands
    /// out http:// URLs that load.
    func origin(_ request: HTTPRequest) -> String {
        publicURL ?? "\(scheme(request))://\(host(request))"
    }

    /// The peer's IP address without its port ("[::1]:5000" → "::1", "10.0.0.1:5000" → "10.0.0.1").
    /// Every request asks, so it looks at the contiguous bytes: Character-wise filtering was an
    /// eighth of /healthz, and walking String.UTF8View's indices still cost 1,000 instructions.
    static func address(withoutPort address: String) -> String {
        var text = address
        return text.withUTF8 { bytes in
            if bytes.first == UInt8(ascii: "["), let close = bytes.firstIndex(of: UInt8(ascii: "]")) {
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[1..<close]), as: UTF8.self)
            }
            var colons = 0
            var lastColon = 0
            for index in 0..<bytes.count where bytes[index] == UInt8(ascii: ":") {
                colons += 1
                lastColon = index
            }
            return colons == 1 ? String(decoding: UnsafeBufferPointer(rebasing: bytes[..<lastColon]), as: UTF8.self) : address
        }
    }
}

extension ProxyTrust: Middleware {
    /// Who the client is, which host it asked for and where it reaches Herald.
    func handle(_ context: inout RequestContext, _ route: Route,
                next: (inout RequestContext) throws -> HTTPResponse) throws -> HTTPResponse {
        apply(to: &context)
        return try next(&context)
    }

    func apply(to context: inout RequestContext) {
        context.clientAddress = clientAddress(context.request)
        context.trustProxy(self)
    }
}

import HeraldHTTP

/// Who the client is and which host it asked for. Behind a trusted proxy
/// (`HERALD_TRUST_FORWARDED_FOR`), the last `X-Forwarded-For` entry is the client and
/// `X-Forwarded-Host` the host; otherwise both headers are ignored, so a client cannot claim
/// another address (rate limits, the audit log) or another host (image URLs).
struct ProxyTrust: Sendable {
    let trustForwardedHeaders: Bool

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

    /// The peer's IP address without its port ("[::1]:5000" → "::1", "10.0.0.1:5000" → "10.0.0.1").
    static func address(withoutPort address: String) -> String {
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<close])
        }
        if address.filter({ $0 == ":" }).count == 1, let colon = address.lastIndex(of: ":") {
            return String(address[..<colon])
        }
        return address
    }
}

import HeraldHTTP

extension HTTPRequest {
    /// The value of cookie `name` from the `Cookie` header(s), if sent.
    func cookie(_ name: String) -> String? {
        for header in headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = pair.trimmingSpaces
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals] == name { return String(trimmed[trimmed.index(after: equals)...]) }
            }
        }
        return nil
    }

    /// The token after `Authorization: Bearer`, or nil when the header is absent.
    /// A present header with another scheme yields an empty string, which matches no key.
    var bearerToken: String? {
        guard let value = headers["Authorization"] else { return nil }
        // Read as bytes: every API request asks, and splitting and lowercasing the header as
        // characters cost a third of finding the caller (callgrind).
        let text = value.trimmingSpaces
        let bytes = text.utf8
        guard let space = bytes.firstIndex(of: UInt8(ascii: " ")),
              bytes[..<space].elementsEqual("bearer".utf8, by: { $0 | 0x20 == $1 }) else { return "" }
        return text[bytes.index(after: space)...].trimmingSpaces
    }

    /// Whether the method may change state (RFC 9110 §9.2.1: anything but GET, HEAD, OPTIONS, TRACE).
    var isUnsafeMethod: Bool { !["GET", "HEAD", "OPTIONS", "TRACE"].contains(method.rawValue) }
}

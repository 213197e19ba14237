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
        let parts = value.trimmingSpaces.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return "" }
        return parts[1].trimmingSpaces
    }

    /// Whether the method may change state (RFC 9110 §9.2.1: anything but GET, HEAD, OPTIONS, TRACE).
    var isUnsafeMethod: Bool { !["GET", "HEAD", "OPTIONS", "TRACE"].contains(method.rawValue) }

    /// The peer's IP address without its port, for rate limits and the audit log.
    var clientAddress: String {
        let address = remoteAddress
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<close])
        }
        if address.filter({ $0 == ":" }).count == 1, let colon = address.lastIndex(of: ":") {
            return String(address[..<colon])
        }
        return address
    }

    /// A field of a submitted form: `application/x-www-form-urlencoded`, or the plain-text part
    /// of that name in `multipart/form-data` (file uploads carry their CSRF token this way).
    func formField(_ name: String) -> String? {
        let contentType = headers["Content-Type"] ?? ""
        let media = contentType.split(separator: ";").first.map { $0.trimmingSpaces.lowercased() } ?? ""
        if media == "application/x-www-form-urlencoded" {
            return Self.decodeForm(body).first { $0.name == name }?.value
        }
        if media == "multipart/form-data" {
            return multipartField(name, contentType: contentType)
        }
        return nil
    }

    private func multipartField(_ name: String, contentType: String) -> String? {
        guard let boundaryRange = contentType.range(of: "boundary=") else { return nil }
        var boundary = String(contentType[boundaryRange.upperBound...])
        if let semicolon = boundary.firstIndex(of: ";") { boundary = String(boundary[..<semicolon]) }
        boundary = boundary.trimmingCharacters(in: "\" ")
        let delimiter = Array("\r\n--\(boundary)".utf8)
        let disposition = Array("name=\"\(name)\"".utf8)
        // Parts begin after each delimiter; the first delimiter has no leading CRLF.
        let bytes = Array("\r\n".utf8) + body
        var start = 0
        while let found = bytes.firstRange(of: delimiter, from: start) {
            let partStart = found.upperBound
            let next = bytes.firstRange(of: delimiter, from: partStart)?.lowerBound ?? bytes.count
            let part = Array(bytes[partStart..<next])
            if let headerEnd = part.firstRange(of: Array("\r\n\r\n".utf8), from: 0) {
                let head = Array(part[..<headerEnd.lowerBound])
                if head.firstRange(of: disposition, from: 0) != nil, head.firstRange(of: Array("filename=".utf8), from: 0) == nil {
                    return String(decoding: part[headerEnd.upperBound...], as: UTF8.self)
                }
            }
            start = next
            if next == bytes.count { break }
        }
        return nil
    }
}

extension Array where Element == UInt8 {
    /// The first occurrence of `needle` at or after `start`.
    func firstRange(of needle: [UInt8], from start: Int) -> Range<Int>? {
        guard !needle.isEmpty, count >= needle.count, start <= count - needle.count else { return nil }
        var index = start
        while index <= count - needle.count {
            if self[index] == needle[0] && Array(self[index..<(index + needle.count)]) == needle {
                return index..<(index + needle.count)
            }
            index += 1
        }
        return nil
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}

/// Writes a response head and body into a reusable byte buffer.
enum ResponseSerializer {
    /// Appends `response` to `out`. The server owns the framing: handler-set `Content-Length`,
    /// `Transfer-Encoding`, `Connection` and `Date` are replaced. For a HEAD request the body is
    /// dropped and a handler-given `Content-Length` (the GET's) is kept (RFC 9110 §9.3.2).
    static func write(_ response: HTTPResponse, headRequest: Bool, close: Bool, confirmKeepAlive: Bool = false, date: [UInt8],
                      into out: inout [UInt8]) {
        let status = response.status
        // RFC 9110 §8.6: no Content-Length on 1xx or 204; 304 carries no body (§15.4.5).
        let noBody = status < 200 || status == 204 || status == 304
        let sendsBody = !noBody && !headRequest
        out.append(contentsOf: "HTTP/1.1 ".utf8)
        appendSafely(String(status), into: &out)
        out.append(0x20)
        out.append(contentsOf: HTTPResponse.reasonPhrase(status).utf8)
        out.append(contentsOf: "\r\n".utf8)
        var contentLength: String? = noBody ? nil : String(response.body.count)
        for (name, value) in response.headers {
            if HTTPHeaders.sameName(name, "content-length") {
                if headRequest && !noBody { contentLength = value }
                continue
            }
            if HTTPHeaders.sameName(name, "transfer-encoding") || HTTPHeaders.sameName(name, "connection")
                || HTTPHeaders.sameName(name, "date") {
                continue
            }
            appendSafely(name, into: &out)
            out.append(contentsOf: ": ".utf8)
            appendSafely(value, into: &out)
            out.append(contentsOf: "\r\n".utf8)
        }
        if let contentLength {
            out.append(contentsOf: "Content-Length: ".utf8)
            appendSafely(contentLength, into: &out)
            out.append(contentsOf: "\r\n".utf8)
        }
        out.append(contentsOf: "Date: ".utf8)
        out.append(contentsOf: date)
        if close {
            out.append(contentsOf: "\r\nConnection: close\r\n\r\n".utf8)
        } else if confirmKeepAlive {
            out.append(contentsOf: "\r\nConnection: keep-alive\r\n\r\n".utf8)
        } else {
            out.append(contentsOf: "\r\n\r\n".utf8)
        }
        if sendsBody { out.append(contentsOf: response.body) }
    }

    /// A CR or LF from a handler would split the response (header injection); they become spaces.
    private static func appendSafely(_ text: String, into out: inout [UInt8]) {
        for byte in text.utf8 {
            out.append(byte == 0x0D || byte == 0x0A || byte == 0 ? 0x20 : byte)
        }
    }

    /// `HTTP/1.1 100 Continue`, sent before reading a body the client is holding back (RFC 9110 §10.1.1).
    static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
}

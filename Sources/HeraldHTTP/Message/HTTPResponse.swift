/// A response from a handler. The server adds `Content-Length`, `Date` and, when it closes the
/// connection, `Connection: close`; a handler need not (and any it sets are replaced).
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// Header fields to send, in order.
    public var headers: HTTPHeaders
    /// The body bytes. Dropped on the wire for HEAD requests and for 204/304 responses.
    public var body: [UInt8]

    /// A response with the given status, headers and body.
    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A text response: UTF-8 body and `Content-Type: <contentType>` (default `text/plain; charset=utf-8`).
    public init(status: Int, text: String, contentType: String = "text/plain; charset=utf-8") {
        self.init(status: status, headers: ["Content-Type": contentType], body: Array(text.utf8))
    }

    /// An RFC 9457 problem (`application/problem+json`) for what the server answers on its own,
    /// before any handler (a malformed or too large request, a timeout, a full queue), so that
    /// clients get one error shape whatever answers. `detail` says what was wrong.
    public static func problem(status: Int, detail: String, headers extra: HTTPHeaders = [:]) -> HTTPResponse {
        var body: [UInt8] = Array(#"{"type":"about:blank","title":"#.utf8)
        appendJSONString(reasonPhrase(status), to: &body)
        body += Array(#","status":\#(status),"detail":"#.utf8)
        appendJSONString(detail, to: &body)
        body.append(UInt8(ascii: "}"))
        var headers = extra
        headers.set("Content-Type", "application/problem+json")
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    private static func appendJSONString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += Array(#"\""#.utf8)
            case "\\": output += Array(#"\\"#.utf8)
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default: output += Array(String(scalar).utf8)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// The standard reason phrase of a status code (RFC 9110 §15), or "Unknown".
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Unknown"
        }
    }
}

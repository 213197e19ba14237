/// Writes a response head and body into a reusable byte buffer.
enum ResponseSerializer {
    /// Appends `response` to `out`. The server owns the framing: handler-set `Content-Length`,
    /// `Transfer-Encoding`, `Connection` and `Date` are replaced. For a HEAD request the body is
    /// dropped and a handler-given `Content-Length` (the GET's) is kept (RFC 9110 §9.3.2).
    ///
    /// The whole response is measured first and then copied into the buffer in one pass, so the
    /// buffer grows at most once and no header becomes a String on the way.
    static func write(_ response: HTTPResponse, headRequest: Bool, close: Bool, confirmKeepAlive: Bool = false, date: [UInt8],
                      into out: inout [UInt8]) {
        let status = response.status
        // RFC 9110 §8.6: no Content-Length on 1xx or 204; 304 carries no body (§15.4.5).
        let noBody = status < 200 || status == 204 || status == 304
        let sendsBody = !noBody && !headRequest
        let reason = HTTPResponse.reasonPhrase(status).utf8
        let statusDigits = decimalCount(status)
        let bodyLength = response.body.count

        var size = 9 + statusDigits + 1 + reason.count + 2
        // A handler's Content-Length is kept only for HEAD (the last one given, as with any field set twice).
        var keptLength: [UInt8]?
        response.headers.forEachField { name, value in
            switch framingField(name) {
            case .contentLength:
                if headRequest && !noBody { keptLength = Array(value) }
            case .replaced:
                break
            case .kept:
                size += name.count + 2 + value.count + 2
            }
        }
        if !noBody { size += 16 + (keptLength?.count ?? decimalCount(bodyLength)) + 2 }
        size += 6 + date.count + 2
        let connection: StaticString? = close ? "Connection: close\r\n" : (confirmKeepAlive ? "Connection: keep-alive\r\n" : nil)
        size += (connection?.utf8CodeUnitCount ?? 0) + 2
        if sendsBody { size += bodyLength }

        out.reserveCapacity(out.count + size)
        append("HTTP/1.1 ", to: &out)
        appendDecimal(status, to: &out)
        out.append(0x20)
        out.append(contentsOf: reason)
        append("\r\n", to: &out)
        response.headers.forEachField { name, value in
            guard case .kept = framingField(name) else { return }
            appendSafely(name, to: &out)
            append(": ", to: &out)
            appendSafely(value, to: &out)
            append("\r\n", to: &out)
        }
        if !noBody {
            append("Content-Length: ", to: &out)
            if let keptLength {
                keptLength.withUnsafeBufferPointer { appendSafely($0[...], to: &out) }
            } else {
                appendDecimal(bodyLength, to: &out)
            }
            append("\r\n", to: &out)
        }
        append("Date: ", to: &out)
        out.append(contentsOf: date)
        append("\r\n", to: &out)
        if let connection { append(connection, to: &out) }
        append("\r\n", to: &out)
        if sendsBody { out.append(contentsOf: response.body) }
    }

    private enum FramingField { case contentLength, replaced, kept }

    /// Whether a handler's field is one the server writes itself.
    private static func framingField(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> FramingField {
        let (base, start, end) = (UnsafeBufferPointer(rebasing: name), 0, name.count)
        if ByteClass.equalsLowercase(base, start, end, "content-length") { return .contentLength }
        if ByteClass.equalsLowercase(base, start, end, "transfer-encoding") || ByteClass.equalsLowercase(base, start, end, "connection")
            || ByteClass.equalsLowercase(base, start, end, "date") {
            return .replaced
        }
        return .kept
    }

    /// A CR, LF or NUL from a handler would split the response (header injection); they become spaces.
    private static func appendSafely(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, to out: inout [UInt8]) {
        guard bytes.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
            out.append(contentsOf: bytes)
            return
        }
        for byte in bytes { out.append(byte == 0x0D || byte == 0x0A || byte == 0 ? 0x20 : byte) }
    }

    private static func append(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func decimalCount(_ value: Int) -> Int {
        var digits = 1
        var rest = value / 10
        while rest != 0 {
            digits += 1
            rest /= 10
        }
        return digits + (value < 0 ? 1 : 0)
    }

    private static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var divisor: UInt = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        }
    }

    /// `HTTP/1.1 100 Continue`, sent before reading a body the client is holding back (RFC 9110 §10.1.1).
    static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
}

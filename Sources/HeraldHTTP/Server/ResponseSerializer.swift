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
        var reason = HTTPResponse.reasonPhrase(status)
        let bodyLength = response.body.count

        var size = 9 + decimalCount(status) + 1 + reason.utf8.count + 2
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

        out.reserveCapacity(out.count + size + (sendsBody ? bodyLength : 0))
        // The head is composed on the stack and copied once; the body follows it.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { head in
            var cursor = Cursor(head.baseAddress!)
            cursor.put("HTTP/1.1 ")
            cursor.putDecimal(status)
            cursor.put(0x20)
            reason.withUTF8 { cursor.put($0[...]) }
            cursor.put("\r\n")
            response.headers.forEachField { name, value in
                guard case .kept = framingField(name) else { return }
                cursor.putSafely(name)
                cursor.put(": ")
                cursor.putSafely(value)
                cursor.put("\r\n")
            }
            if !noBody {
                cursor.put("Content-Length: ")
                if let keptLength {
                    keptLength.withUnsafeBufferPointer { cursor.putSafely($0[...]) }
                } else {
                    cursor.putDecimal(bodyLength)
                }
                cursor.put("\r\n")
            }
            cursor.put("Date: ")
            date.withUnsafeBufferPointer { cursor.put($0[...]) }
            cursor.put("\r\n")
            if let connection { cursor.put(connection) }
            cursor.put("\r\n")
            out.append(contentsOf: UnsafeBufferPointer(start: head.baseAddress, count: cursor.written(since: head.baseAddress!)))
        }
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

    /// Writes into memory measured beforehand.
    private struct Cursor {
        private var position: UnsafeMutablePointer<UInt8>

        init(_ start: UnsafeMutablePointer<UInt8>) { position = start }

        func written(since start: UnsafeMutablePointer<UInt8>) -> Int { position - start }

        mutating func put(_ byte: UInt8) {
            position.initialize(to: byte)
            position += 1
        }

        mutating func put(_ text: StaticString) {
            position.initialize(from: text.utf8Start, count: text.utf8CodeUnitCount)
            position += text.utf8CodeUnitCount
        }

        mutating func put(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
            guard let base = bytes.base.baseAddress, !bytes.isEmpty else { return }
            position.initialize(from: base + bytes.startIndex, count: bytes.count)
            position += bytes.count
        }

        /// A CR, LF or NUL from a handler would split the response (header injection); they become spaces.
        mutating func putSafely(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) {
            let start = position
            put(bytes)
            for index in 0..<bytes.count where start[index] == 0x0D || start[index] == 0x0A || start[index] == 0 {
                start[index] = 0x20
            }
        }

        mutating func putDecimal(_ value: Int) {
            if value < 0 { put(UInt8(ascii: "-")) }
            let magnitude = value.magnitude
            var divisor: UInt = 1
            while magnitude / divisor >= 10 { divisor *= 10 }
            while divisor > 0 {
                put(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
                divisor /= 10
            }
        }
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

    /// `HTTP/1.1 100 Continue`, sent before reading a body the client is holding back (RFC 9110 §10.1.1).
    static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
}

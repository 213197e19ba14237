/// How the body of a request is delimited (RFC 9112 §6.3).
enum BodyFraming: Equatable {
    case none
    case length(Int)
    case chunked
}

/// A parsed request head: the request without its body, and how to read the body.
struct RequestHead {
    var request: HTTPRequest
    var framing: BodyFraming
    /// `Expect: 100-continue` on an HTTP/1.1 request (RFC 9110 §10.1.1).
    var expectsContinue: Bool
    /// Set when the request's route streams its body: the most it may carry.
    var streamedBodyLimit: Int? = nil
    /// A streamed body whose Content-Length is over its route's limit: the head still goes to the
    /// handler (which may answer in its own words, say a page in the user's language), and its
    /// body fails as too large at once.
    var bodyOverLimit = false

    /// Parses a complete head, `bytes[start..<end]`, which ends with an empty line.
    /// The caller has checked the size limits of the block and of the request-line.
    /// A request with a body that `streaming` gives a limit has that limit instead of `maxBodyBytes`.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int, limits: HTTPParserLimits,
                      streaming: BodyStreamingRule? = nil) throws(HTTPParseError) -> RequestHead {
        // RFC 9112 §2.2: a CR anywhere but before LF is refused rather than guessed at, and so is
        // an LF without its CR: a proxy that passes a bare LF inside a value would otherwise see
        // one request where Herald sees two (request smuggling).
        var i = start
        var lineCount = 0
        while i < end {
            if bytes[i] == ByteClass.cr && (i + 1 >= end || bytes[i + 1] != ByteClass.lf) { throw .bareCarriageReturn }
            if bytes[i] == ByteClass.lf {
                if i == start || bytes[i - 1] != ByteClass.cr { throw .bareLineFeed }
                lineCount += 1
            }
            i += 1
        }
        var line = nextLine(bytes, from: start, end: end)
        let (method, targetStart, targetEnd, isHTTP10) = try parseRequestLine(bytes, line.start, line.end)

        // The header lines are copied once, as they came; fields are ranges into that copy.
        let fieldsStart = line.next
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(max(0, min(lineCount - 2, limits.maxHeaderCount)))
        var contentLength: Int?
        var sawContentLength = false
        var transferCodings: [ArraySlice<UInt8>] = []
        var sawTransferEncoding = false
        var hostCount = 0
        var emptyHost = false
        var connectionClose = false
        var connectionKeepAlive = false
        var expectsContinue = false
        var fieldCount = 0

        line = nextLine(bytes, from: line.next, end: end)
        while line.start < line.end {
            let field = try FieldLine.parse(bytes, line.start, line.end)
            fieldCount += 1
            if fieldCount > limits.maxHeaderCount { throw .tooManyHeaders }
            let n0 = field.nameStart, n1 = field.nameEnd
            if ByteClass.equalsLowercase(bytes, n0, n1, "content-length") {
                sawContentLength = true
                // RFC 9110 §8.6: a list of identical values may be taken as one; anything else is refused.
                for element in listElements(bytes, field.valueStart, field.valueEnd) {
                    // Checked against the request's own limit once its route is known, below.
                    let value = try parseContentLength(element, max: Self.largestContentLength)
                    if let previous = contentLength, previous != value { throw .conflictingContentLength }
                    contentLength = value
                }
                if contentLength == nil { throw .invalidContentLength }
            } else if ByteClass.equalsLowercase(bytes, n0, n1, "transfer-encoding") {
                sawTransferEncoding = true
                transferCodings += listElements(bytes, field.valueStart, field.valueEnd)
            } else if ByteClass.equalsLowercase(bytes, n0, n1, "host") {
                hostCount += 1
                if field.valueStart == field.valueEnd { emptyHost = true }
                // Host = uri-host [ ":" port ] (RFC 9110 §7.2); an invalid value is a 400 (RFC 9112 §3.2).
                for j in field.valueStart..<field.valueEnd where !ByteClass.isHostChar(bytes[j]) { throw .invalidHost }
            } else if ByteClass.equalsLowercase(bytes, n0, n1, "connection") {
                for option in listElements(bytes, field.valueStart, field.valueEnd) {
                    option.withUnsafeBufferPointer { o in
                        if ByteClass.equalsLowercase(o, 0, o.count, "close") { connectionClose = true }
                        if ByteClass.equalsLowercase(o, 0, o.count, "keep-alive") { connectionKeepAlive = true }
                    }
                }
            } else if ByteClass.equalsLowercase(bytes, n0, n1, "expect") {
                expectsContinue = ByteClass.equalsLowercase(bytes, field.valueStart, field.valueEnd, "100-continue")
            }
            fields.append(HTTPHeaders.Field(name: (n0 - fieldsStart)..<(n1 - fieldsStart),
                                            value: (field.valueStart - fieldsStart)..<(field.valueEnd - fieldsStart)))
            line = nextLine(bytes, from: line.next, end: end)
        }
        let headers = HTTPHeaders(bytes: Array(UnsafeBufferPointer(rebasing: bytes[fieldsStart..<line.start])), fields: fields)

        // RFC 9112 §3.2: a server MUST respond 400 to an HTTP/1.1 request without Host or with several;
        // an http URI always has an authority, so an empty Host is as invalid as a missing one.
        if hostCount > 1 || (hostCount == 0 && !isHTTP10) || emptyHost { throw .invalidHost }
        // The asterisk-form is for OPTIONS alone (RFC 9112 §3.2.4).
        if targetEnd - targetStart == 1 && bytes[targetStart] == UInt8(ascii: "*") && method != .options { throw .invalidRequestLine }

        let framing: BodyFraming
        if sawTransferEncoding {
            // RFC 9112 §6.1: Content-Length with Transfer-Encoding is a smuggling vector; refuse it.
            if sawContentLength { throw .contentLengthWithTransferEncoding }
            // RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 means the framing is faulty.
            if isHTTP10 { throw .invalidTransferEncoding }
            // RFC 9112 §6.3 item 4 and §7.1: chunked must be present, once, and last; a request whose
            // final coding is not chunked cannot be framed at all (400 and close, §6.1), even when a
            // coding before it is one Herald does not support.
            let isChunked = transferCodings.map { coding in
                coding.withUnsafeBufferPointer { ByteClass.equalsLowercase($0, 0, $0.count, "chunked") }
            }
            guard isChunked.last == true, isChunked.filter({ $0 }).count == 1 else { throw .invalidTransferEncoding }
            guard isChunked.count == 1 else { throw .unsupportedTransferEncoding }
            framing = .chunked
        } else if let contentLength, contentLength > 0 {
            framing = .length(contentLength)
        } else {
            framing = .none
        }

        let keepAlive = isHTTP10 ? (connectionKeepAlive && !connectionClose) : !connectionClose
        let (path, query) = splitTarget(bytes, targetStart, targetEnd)
        let request = HTTPRequest(method: method, target: string(bytes, targetStart, targetEnd), path: path, query: query,
                                  headers: headers, keepAlive: keepAlive, isHTTP10: isHTTP10)
        // Only a request with a body asks its route whether it streams.
        let streamedBodyLimit = framing == .none ? nil : streaming?(request)
        var bodyOverLimit = false
        if case .length(let length) = framing, length > streamedBodyLimit ?? limits.maxBodyBytes {
            guard streamedBodyLimit != nil else { throw .bodyTooLarge }
            bodyOverLimit = true
        }
        // A body refused already is not asked for.
        return RequestHead(request: request, framing: framing,
                           expectsContinue: expectsContinue && !isHTTP10 && framing != .none && !bodyOverLimit,
                           streamedBodyLimit: streamedBodyLimit, bodyOverLimit: bodyOverLimit)
    }

    /// A Content-Length beyond any body limit one can configure (and far from overflowing).
    static let largestContentLength = 1 << 50

    /// The line starting at `from`: its content without CRLF (or bare LF, RFC 9112 §2.2) and where the next begins.
    static func nextLine(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> (start: Int, end: Int, next: Int) {
        var lf = from
        while lf < end && bytes[lf] != ByteClass.lf { lf += 1 }
        let contentEnd = lf > from && bytes[lf - 1] == ByteClass.cr ? lf - 1 : lf
        return (from, contentEnd, min(lf + 1, end))
    }

    /// request-line = method SP request-target SP HTTP-version (RFC 9112 §3).
    static func parseRequestLine(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) throws(HTTPParseError)
        -> (HTTPMethod, Int, Int, Bool) {
        var i = start
        while i < end && ByteClass.isTokenChar(bytes[i]) { i += 1 }
        guard i > start, i < end, bytes[i] == ByteClass.space else { throw .invalidRequestLine }
        let method = methodFromBytes(bytes, start, i)
        let targetStart = i + 1
        i = targetStart
        // A fragment is never part of a request-target (RFC 9112 §3.2): `#` ends the scan and is refused.
        while i < end && ByteClass.isTargetChar(bytes[i]) && bytes[i] != UInt8(ascii: "#") { i += 1 }
        guard i > targetStart, i < end, bytes[i] == ByteClass.space else { throw .invalidRequestLine }
        let targetEnd = i
        // HTTP-version = "HTTP/" DIGIT "." DIGIT, case-sensitive (RFC 9112 §2.3).
        let v = i + 1
        guard end - v == 8, bytes[v] == UInt8(ascii: "H"), bytes[v + 1] == UInt8(ascii: "T"), bytes[v + 2] == UInt8(ascii: "T"),
              bytes[v + 3] == UInt8(ascii: "P"), bytes[v + 4] == UInt8(ascii: "/"), bytes[v + 6] == UInt8(ascii: "."),
              isDigit(bytes[v + 5]), isDigit(bytes[v + 7]) else { throw .invalidRequestLine }
        // A higher minor version of HTTP/1 is served as HTTP/1.1 (RFC 9110 §2.5).
        guard bytes[v + 5] == UInt8(ascii: "1") else { throw .unsupportedVersion }
        return (method, targetStart, targetEnd, bytes[v + 7] == UInt8(ascii: "0"))
    }

    /// Content-Length = 1*DIGIT (RFC 9110 §8.6). A number beyond the body limit is a 413, not a 400.
    static func parseContentLength(_ digits: ArraySlice<UInt8>, max: Int) throws(HTTPParseError) -> Int {
        guard !digits.isEmpty else { throw .invalidContentLength }
        var value = 0
        var tooLarge = false
        for byte in digits {
            guard isDigit(byte) else { throw .invalidContentLength }
            if !tooLarge {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                if value > max { tooLarge = true }
            }
        }
        if tooLarge { throw .bodyTooLarge }
        return value
    }

    /// The elements of a comma-separated list, trimmed of OWS, empty ones skipped (RFC 9110 §5.6.1).
    static func listElements(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> [ArraySlice<UInt8>] {
        var elements: [ArraySlice<UInt8>] = []
        var i = start
        while i <= end {
            var j = i
            while j < end && bytes[j] != UInt8(ascii: ",") { j += 1 }
            var a = i, b = j
            while a < b && ByteClass.isWhitespace(bytes[a]) { a += 1 }
            while b > a && ByteClass.isWhitespace(bytes[b - 1]) { b -= 1 }
            if b > a { elements.append(ArraySlice(UnsafeBufferPointer(rebasing: bytes[a..<b]))) }
            i = j + 1
        }
        return elements
    }

    /// Splits origin-form or absolute-form targets into path and query (RFC 9112 §3.2).
    static func splitTarget(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (String, String?) {
        var pathStart = start
        if bytes[start] != UInt8(ascii: "/") {
            // absolute-form "scheme://authority/path": routing wants the path (RFC 9112 §3.2.2).
            var i = start
            while i + 2 < end && !(bytes[i] == UInt8(ascii: ":") && bytes[i + 1] == UInt8(ascii: "/") && bytes[i + 2] == UInt8(ascii: "/")) { i += 1 }
            if i + 2 < end {
                pathStart = i + 3
                while pathStart < end && bytes[pathStart] != UInt8(ascii: "/") && bytes[pathStart] != UInt8(ascii: "?") { pathStart += 1 }
            }
        }
        var mark = pathStart
        while mark < end && bytes[mark] != UInt8(ascii: "?") { mark += 1 }
        var path = string(bytes, pathStart, mark)
        if path.isEmpty { path = "/" }
        return (path, mark < end ? string(bytes, mark + 1, end) : nil)
    }

    static func methodFromBytes(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> HTTPMethod {
        switch end - start {
        case 3 where bytes[start] == UInt8(ascii: "G") && bytes[start + 1] == UInt8(ascii: "E") && bytes[start + 2] == UInt8(ascii: "T"):
            return .get
        case 4 where bytes[start] == UInt8(ascii: "P") && bytes[start + 1] == UInt8(ascii: "O") && bytes[start + 2] == UInt8(ascii: "S") && bytes[start + 3] == UInt8(ascii: "T"):
            return .post
        default:
            return HTTPMethod(rawValue: string(bytes, start, end))
        }
    }

    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    @inline(__always) static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }
}

/// One field line, `field-name ":" OWS field-value OWS` (RFC 9112 §5), as byte ranges.
struct FieldLine {
    var nameStart: Int, nameEnd: Int, valueStart: Int, valueEnd: Int

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) throws(HTTPParseError) -> FieldLine {
        // RFC 9112 §5.2: obs-fold is refused with 400 rather than unfolded.
        if ByteClass.isWhitespace(bytes[start]) { throw .obsoleteLineFolding }
        var i = start
        while i < end && ByteClass.isTokenChar(bytes[i]) { i += 1 }
        let nameEnd = i
        guard i < end, bytes[i] == ByteClass.colon, nameEnd > start else {
            // RFC 9112 §5.1: no whitespace is allowed between the field name and colon.
            var j = i
            while j < end && ByteClass.isWhitespace(bytes[j]) { j += 1 }
            if j > i && j < end && bytes[j] == ByteClass.colon && nameEnd > start { throw .whitespaceBeforeColon }
            throw .invalidHeaderName
        }
        var valueStart = i + 1
        var valueEnd = end
        while valueStart < valueEnd && ByteClass.isWhitespace(bytes[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart && ByteClass.isWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
        for j in valueStart..<valueEnd where !ByteClass.isFieldValueChar(bytes[j]) { throw .invalidHeaderValue }
        return FieldLine(nameStart: start, nameEnd: nameEnd, valueStart: valueStart, valueEnd: valueEnd)
    }
}

/// What one call to `HTTPRequestParser.parse` found.
public enum HTTPParseResult: Sendable {
    /// The buffer holds only part of a request; call again with the same bytes and more.
    case needMore
    /// A complete request, taking the first `consumed` bytes of the buffer.
    case request(HTTPRequest, consumed: Int)
    /// The head of a request whose body is streamed (its route said so): the body follows as
    /// `bodyPart`s from the next call on. `expectsContinue`: the client waits for `100 Continue`.
    /// When its Content-Length is over the route's limit, the next call is `.error(.bodyTooLarge)`
    /// (`refusesBody` says so at once), so that the route's handler may still answer.
    case head(HTTPRequest, consumed: Int, expectsContinue: Bool)
    /// Body bytes of a streamed request, taking the first `consumed` bytes of the buffer (framing
    /// included); `last` ends the request, and the parser is ready for the next one.
    case bodyPart([UInt8], consumed: Int, last: Bool)
    /// The request is malformed or over a limit: answer `error.status` and close.
    case error(HTTPParseError)
}

/// An incremental HTTP/1.1 request parser (RFC 9112) that does no I/O.
///
/// The caller keeps the unconsumed bytes of the connection in one buffer, appends what it reads,
/// and calls `parse` with the whole buffer each time. The parser remembers how far it got, so
/// nothing is scanned twice. After `.request(_, consumed:)` the caller drops `consumed` bytes and
/// the parser is ready for the next (pipelined) request. After `.error` it stays failed.
public struct HTTPRequestParser: Sendable {
    private enum State {
        /// Looking for the empty line that ends the head. `start` is the first byte after any
        /// leading empty lines (nil until found), `scanned` where the search resumes,
        /// `lineEnded` whether the request-line's LF was seen.
        case head(start: Int?, scanned: Int, requestLineEnded: Bool)
        case body(RequestHead, bodyStart: Int, length: Int)
        case chunked(RequestHead, ChunkedBodyDecoder)
        /// A streamed body: `remaining` bytes still to come.
        case streamed(remaining: Int)
        /// A streamed chunked body; the decoder's offsets restart at 0 after each part.
        case streamedChunked(ChunkedBodyDecoder, limits: HTTPParserLimits)
        case failed(HTTPParseError)
    }

    /// The limits this parser enforces.
    public let limits: HTTPParserLimits
    /// Which requests have their body streamed, and up to what size.
    private let streaming: BodyStreamingRule?
    private var state = State.head(start: nil, scanned: 0, requestLineEnded: false)

    /// A parser for one connection. A request that `streaming` gives a limit is returned as its
    /// `head`, then its body in parts, instead of whole.
    public init(limits: HTTPParserLimits = HTTPParserLimits(), streaming: BodyStreamingRule? = nil) {
        self.limits = limits
        self.streaming = streaming
    }

    /// True once the head of the current request is complete and its body is being received
    /// (the server then applies the body timeout instead of the header timeout).
    public var isReceivingBody: Bool {
        switch state {
        case .body, .chunked, .streamed, .streamedChunked: true
        default: false
        }
    }

    /// True when the current request's head asked for `100 Continue` and its body is still awaited.
    public var expectsContinue: Bool {
        switch state {
        case .body(let head, _, _), .chunked(let head, _): head.expectsContinue
        default: false
        }
    }

    /// After `.head`: the streamed body is refused already (its Content-Length is over the
    /// route's limit), and the next call answers `.error(.bodyTooLarge)`.
    public var refusesBody: Bool {
        if case .failed(.bodyTooLarge) = state { return true }
        return false
    }

    /// Parses the buffer `bytes`, which starts at the first unconsumed byte of the connection.
    public mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPParseResult {
        do {
            return try step(bytes)
        } catch {
            state = .failed(error)
            return .error(error)
        }
    }

    /// Convenience for tests and callers that hold an array.
    public mutating func parse(_ bytes: [UInt8]) -> HTTPParseResult {
        bytes.withUnsafeBufferPointer { parse($0) }
    }

    private mutating func step(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) -> HTTPParseResult {
        switch state {
        case .failed(let error):
            throw error
        case .head(let start, let scanned, let requestLineEnded):
            guard let (headStart, headEnd) = try findHeadEnd(bytes, start: start, scanned: scanned, requestLineEnded: requestLineEnded) else {
                return .needMore
            }
            let head = try RequestHead.parse(bytes, start: headStart, end: headEnd, limits: limits, streaming: streaming)
            if let streamedLimit = head.streamedBodyLimit {
                if head.bodyOverLimit {
                    state = .failed(.bodyTooLarge)
                    return .head(head.request, consumed: headEnd, expectsContinue: false)
                }
                switch head.framing {
                case .none:
                    state = .streamed(remaining: 0)
                case .length(let length):
                    state = .streamed(remaining: length)
                case .chunked:
                    var streamLimits = limits
                    streamLimits.maxBodyBytes = streamedLimit
                    state = .streamedChunked(ChunkedBodyDecoder(position: 0), limits: streamLimits)
                }
                return .head(head.request, consumed: headEnd, expectsContinue: head.expectsContinue)
            }
            switch head.framing {
            case .none:
                return finish(head.request, consumed: headEnd)
            case .length(let length):
                state = .body(head, bodyStart: headEnd, length: length)
            case .chunked:
                state = .chunked(head, ChunkedBodyDecoder(position: headEnd))
            }
            return try step(bytes)
        case .body(let head, let bodyStart, let length):
            guard bytes.count - bodyStart >= length else { return .needMore }
            var request = head.request
            request.body = Array(UnsafeBufferPointer(rebasing: bytes[bodyStart..<(bodyStart + length)]))
            return finish(request, consumed: bodyStart + length)
        case .chunked(let head, var decoder):
            state = .failed(.invalidChunkData)  // released while decoding so the body is not copied on write
            guard try decoder.decode(bytes, limits: limits) else {
                state = .chunked(head, decoder)
                return .needMore
            }
            var request = head.request
            request.body = decoder.body
            return finish(request, consumed: decoder.position)
        case .streamed(let remaining):
            let available = min(remaining, bytes.count)
            if available == 0 && remaining > 0 { return .needMore }
            let part = Array(UnsafeBufferPointer(rebasing: bytes[0..<available]))
            return streamedPart(part, consumed: available, last: available == remaining, next: .streamed(remaining: remaining - available))
        case .streamedChunked(var decoder, let streamLimits):
            state = .failed(.invalidChunkData)  // released while decoding so the part is not copied on write
            let done = try decoder.decode(bytes, limits: streamLimits)
            let consumed = decoder.position
            if !done && consumed == 0 {
                state = .streamedChunked(decoder, limits: streamLimits)
                return .needMore
            }
            let part = decoder.takeBody()
            return streamedPart(part, consumed: consumed, last: done, next: .streamedChunked(decoder, limits: streamLimits))
        }
    }

    private mutating func streamedPart(_ part: [UInt8], consumed: Int, last: Bool, next: State) -> HTTPParseResult {
        state = last ? .head(start: nil, scanned: 0, requestLineEnded: false) : next
        return .bodyPart(part, consumed: consumed, last: last)
    }

    private mutating func finish(_ request: HTTPRequest, consumed: Int) -> HTTPParseResult {
        state = .head(start: nil, scanned: 0, requestLineEnded: false)
        return .request(request, consumed: consumed)
    }

    /// Finds the empty line ending the head (RFC 9112 §2.1), enforcing the request-line and
    /// header-block limits at the same byte positions however the input is split.
    private mutating func findHeadEnd(_ bytes: UnsafeBufferPointer<UInt8>, start: Int?, scanned: Int,
                                      requestLineEnded: Bool) throws(HTTPParseError) -> (Int, Int)? {
        var p = scanned
        let n = bytes.count
        var headStart: Int
        if let start {
            headStart = start
        } else {
            // RFC 9112 §2.2: ignore empty lines received before the request-line.
            while true {
                guard p < n else { state = .head(start: nil, scanned: p, requestLineEnded: false); return nil }
                if p >= limits.maxHeaderBytes { throw .headersTooLarge }
                if bytes[p] == ByteClass.lf {
                    p += 1
                } else if bytes[p] == ByteClass.cr {
                    guard p + 1 < n else { state = .head(start: nil, scanned: p, requestLineEnded: false); return nil }
                    guard bytes[p + 1] == ByteClass.lf else { throw .bareCarriageReturn }
                    p += 2
                } else {
                    break
                }
            }
            headStart = p
        }
        var lineEnded = requestLineEnded
        while p < n {
            if !lineEnded && p - headStart > limits.maxRequestLineBytes + 1 { throw .requestLineTooLong }
            if p - headStart >= limits.maxHeaderBytes { throw .headersTooLarge }
            if bytes[p] != ByteClass.cr && bytes[p] != ByteClass.lf {
                // The bytes of a line up to its CR or LF, in a tight loop: one at a time through
                // every check below, finding the head's end was 20 instructions a byte. The run
                // stops short of the first position where a limit applies, so the checks above
                // still throw at the same byte however the input is split.
                var stop = min(n, headStart + limits.maxHeaderBytes)
                if !lineEnded { stop = min(stop, headStart + limits.maxRequestLineBytes + 2) }
                p += 1
                while p < stop && bytes[p] != ByteClass.cr && bytes[p] != ByteClass.lf { p += 1 }
                continue
            }
            // RFC 9112 §2.2: a bare CR is refused as soon as the byte after it is seen; waiting for
            // an LF that never comes (`Content-Length: 3\r\n\rabc`) would hold the connection until
            // the header timeout. A CR at the end of the buffer is looked at again with the next bytes.
            if bytes[p] == ByteClass.cr {
                guard p + 1 < n else { break }
                if bytes[p + 1] != ByteClass.lf { throw .bareCarriageReturn }
            }
            if bytes[p] == ByteClass.lf {
                if !lineEnded {
                    let contentLength = p - headStart - (p > headStart && bytes[p - 1] == ByteClass.cr ? 1 : 0)
                    if contentLength > limits.maxRequestLineBytes { throw .requestLineTooLong }
                    lineEnded = true
                }
                // An empty line (LF or CRLF) right after this LF ends the head.
                guard p + 1 < n else { break }
                if bytes[p + 1] == ByteClass.lf { return try checked(headStart, p + 2) }
                if bytes[p + 1] == ByteClass.cr {
                    guard p + 2 < n else { break }
                    if bytes[p + 2] == ByteClass.lf { return try checked(headStart, p + 3) }
                }
            }
            p += 1
        }
        state = .head(start: headStart, scanned: p, requestLineEnded: lineEnded)
        return nil
    }

    private func checked(_ headStart: Int, _ headEnd: Int) throws(HTTPParseError) -> (Int, Int) {
        if headEnd - headStart > limits.maxHeaderBytes { throw .headersTooLarge }
        return (headStart, headEnd)
    }
}

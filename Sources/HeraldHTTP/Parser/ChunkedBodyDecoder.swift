/// Decodes a chunked body (RFC 9112 §7.1) incrementally from a buffer that only grows between calls.
/// Chunk extensions are tolerated and ignored; trailer fields are checked and dropped (§7.1.2).
struct ChunkedBodyDecoder {
    private enum Phase: Equatable {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailer
        case done
    }

    /// A chunk-size line longer than this (extensions included) is refused.
    static let maxSizeLineBytes = 4096

    /// Where decoding resumes, as an offset into the caller's buffer.
    private(set) var position: Int
    private var phase = Phase.size
    private var trailerStart = 0
    /// Bytes of size lines, extensions and CRLFs so far. They may not exceed the body plus
    /// `maxHeaderBytes`: otherwise one-byte chunks with 4 KiB extensions would make the
    /// connection buffer thousands of times the body limit.
    private var framingBytes = 0
    /// Body bytes decoded so far, including those already taken by `takeBody`.
    private var received = 0
    private(set) var body: [UInt8] = []

    init(position: Int) { self.position = position }

    /// Decodes what `bytes` holds from `position` on. Returns true once the last chunk and the
    /// trailer section are read; `position` is then just past the request.
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, limits: HTTPParserLimits) throws(HTTPParseError) -> Bool {
        while true {
            switch phase {
            case .size:
                guard let lineEnd = try findCRLF(bytes, from: position, max: Self.maxSizeLineBytes, tooLong: .invalidChunkSize, bareLF: .invalidChunkSize) else {
                    return false
                }
                let size = try Self.parseSizeLine(bytes, position, lineEnd)
                if size > limits.maxBodyBytes - received { throw .bodyTooLarge }
                framingBytes += lineEnd + 4 - position  // the line, its CRLF and the CRLF after the data
                if framingBytes > limits.maxHeaderBytes + received + size { throw .bodyTooLarge }
                position = lineEnd + 2
                if size == 0 {
                    phase = .trailer
                    trailerStart = position
                } else {
                    // A streamed body may announce a chunk larger than it should ever hold at once.
                    body.reserveCapacity(body.count + min(size, 1 << 20))
                    phase = .data(remaining: size)
                }
            case .data(let remaining):
                let available = min(remaining, bytes.count - position)
                if available == 0 { return false }
                body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[position..<(position + available)]))
                received += available
                position += available
                phase = remaining == available ? .dataEnd : .data(remaining: remaining - available)
            case .dataEnd:
                guard bytes.count - position >= 2 else {
                    if bytes.count > position && bytes[position] != ByteClass.cr { throw .invalidChunkData }
                    return false
                }
                guard bytes[position] == ByteClass.cr, bytes[position + 1] == ByteClass.lf else { throw .invalidChunkData }
                position += 2
                phase = .size
            case .trailer:
                // trailer-section = *( field-line CRLF ) CRLF; its size counts against the header limit.
                let budget = limits.maxHeaderBytes - (position - trailerStart)
                guard let lineEnd = try findCRLF(bytes, from: position, max: budget, tooLong: .headersTooLarge, bareLF: .invalidChunkData) else { return false }
                if lineEnd > position {
                    _ = try FieldLine.parse(bytes, position, lineEnd)
                    position = lineEnd + 2
                } else {
                    position = lineEnd + 2
                    phase = .done
                }
            case .done:
                return true
            }
        }
    }

    /// For a streamed body: hands over the bytes decoded so far and starts the offsets again at 0,
    /// as the caller drops the `position` bytes it has consumed.
    mutating func takeBody() -> [UInt8] {
        defer {
            body = []
            trailerStart -= position
            position = 0
        }
        return body
    }

    /// The index of the CR of the next CRLF at or after `from`, nil when more bytes are needed.
    /// A CR followed by anything but LF is a bare CR; a line longer than `max` throws `tooLong`.
    private func findCRLF(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, max: Int, tooLong: HTTPParseError,
                          bareLF: HTTPParseError) throws(HTTPParseError) -> Int? {
        var i = from
        while i < bytes.count {
            if i - from > max { throw tooLong }
            let byte = bytes[i]
            if byte == ByteClass.cr {
                guard i + 1 < bytes.count else { return nil }
                guard bytes[i + 1] == ByteClass.lf else { throw .bareCarriageReturn }
                return i
            }
            // RFC 9112 §7.1: chunk lines end with CRLF; a bare LF here is refused.
            if byte == ByteClass.lf { throw bareLF }
            i += 1
        }
        if i - from > max { throw tooLong }
        return nil
    }

    /// chunk-size [ chunk-ext ], where chunk-size = 1*HEXDIG and
    /// chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] ), ext-val = token / quoted-string
    /// (RFC 9112 §7.1.1). Leading zeros are allowed however many; the value must fit 60 bits.
    /// Anything else — `5;`, `5;bad[=x`, an unclosed quote, `5 ` with nothing after — is refused,
    /// so no two parsers can disagree about where this chunk ends.
    static func parseSizeLine(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) throws(HTTPParseError) -> Int {
        var i = start
        var size = 0
        while i < end, let digit = ByteClass.hexValue(bytes[i]) {
            guard size >> 56 == 0 else { throw .invalidChunkSize }
            size = size << 4 | digit
            i += 1
        }
        guard i > start else { throw .invalidChunkSize }
        func skipWhitespace() { while i < end && ByteClass.isWhitespace(bytes[i]) { i += 1 } }
        func token() throws(HTTPParseError) {
            let tokenStart = i
            while i < end && ByteClass.isTokenChar(bytes[i]) { i += 1 }
            guard i > tokenStart else { throw .invalidChunkSize }
        }
        while i < end {
            skipWhitespace()
            guard i < end, bytes[i] == UInt8(ascii: ";") else { throw .invalidChunkSize }
            i += 1
            skipWhitespace()
            try token()
            let afterName = i
            skipWhitespace()
            guard i < end, bytes[i] == UInt8(ascii: "=") else {
                i = afterName
                continue
            }
            i += 1
            skipWhitespace()
            if i < end && bytes[i] == UInt8(ascii: "\"") {
                // quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE (RFC 9110 §5.6.4)
                i += 1
                var closed = false
                while i < end {
                    let byte = bytes[i]
                    if byte == UInt8(ascii: "\"") { closed = true; i += 1; break }
                    if byte == UInt8(ascii: "\\") {
                        guard i + 1 < end, ByteClass.isFieldValueChar(bytes[i + 1]) else { throw .invalidChunkSize }
                        i += 2
                        continue
                    }
                    guard ByteClass.isFieldValueChar(byte) else { throw .invalidChunkSize }
                    i += 1
                }
                guard closed else { throw .invalidChunkSize }
            } else {
                try token()
            }
        }
        return size
    }
}

/// Why a request was refused, and the status to answer with. After any of these the connection
/// is closed: the framing of what follows cannot be trusted (RFC 9112 §2.2, §6.3).
public enum HTTPParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The request-line is not `method SP request-target SP HTTP-version` (RFC 9112 §3).
    case invalidRequestLine
    /// The request-line exceeds `maxRequestLineBytes` (RFC 9112 §3: 414).
    case requestLineTooLong
    /// A well-formed version other than HTTP/1.x (RFC 9110 §15.6.6: 505).
    case unsupportedVersion
    /// A CR not followed by LF (RFC 9112 §2.2).
    case bareCarriageReturn
    /// An LF not preceded by CR in the request head.
    case bareLineFeed
    /// A field line starting with whitespace: obsolete line folding (RFC 9112 §5.2).
    case obsoleteLineFolding
    /// A field name that is empty, has a non-token character, or a line without a colon (RFC 9112 §5).
    case invalidHeaderName
    /// Whitespace between the field name and the colon (RFC 9112 §5.1).
    case whitespaceBeforeColon
    /// A field value with a control character such as NUL (RFC 9110 §5.5).
    case invalidHeaderValue
    /// The header block exceeds `maxHeaderBytes` (RFC 6585 §5: 431).
    case headersTooLarge
    /// More field lines than `maxHeaderCount` (431).
    case tooManyHeaders
    /// An HTTP/1.1 request without Host, with more than one, or with an invalid one (RFC 9112 §3.2).
    case invalidHost
    /// Both Content-Length and Transfer-Encoding (RFC 9112 §6.1, §6.3 item 3).
    case contentLengthWithTransferEncoding
    /// A Content-Length that is not 1*DIGIT (RFC 9110 §8.6).
    case invalidContentLength
    /// Several Content-Length values that differ (RFC 9112 §6.3 item 5).
    case conflictingContentLength
    /// A transfer coding other than chunked (RFC 9112 §6.1: 501).
    case unsupportedTransferEncoding
    /// chunked not final, applied twice, empty, or Transfer-Encoding in HTTP/1.0 (RFC 9112 §6.1, §6.3).
    case invalidTransferEncoding
    /// A chunk-size line that is not HEXDIG [chunk-ext] CRLF, or overflows (RFC 9112 §7.1).
    case invalidChunkSize
    /// Chunk data or a trailer line not ended by CRLF (RFC 9112 §7.1).
    case invalidChunkData
    /// The body exceeds `maxBodyBytes`, or its chunk framing outweighs it (RFC 9110 §15.5.14: 413).
    case bodyTooLarge

    /// The status code to answer with.
    public var status: Int {
        switch self {
        case .requestLineTooLong: 414
        case .unsupportedVersion: 505
        case .headersTooLarge, .tooManyHeaders: 431
        case .unsupportedTransferEncoding: 501
        case .bodyTooLarge: 413
        default: 400
        }
    }

    public var description: String {
        switch self {
        case .invalidRequestLine: "malformed request-line"
        case .requestLineTooLong: "request-line too long"
        case .unsupportedVersion: "HTTP version not supported"
        case .bareCarriageReturn: "CR not followed by LF"
        case .bareLineFeed: "LF not preceded by CR in the request head"
        case .obsoleteLineFolding: "obsolete line folding in a header field"
        case .invalidHeaderName: "invalid header field name"
        case .whitespaceBeforeColon: "whitespace between a header field name and the colon"
        case .invalidHeaderValue: "invalid character in a header field value"
        case .headersTooLarge: "header section too large"
        case .tooManyHeaders: "too many header fields"
        case .invalidHost: "missing, repeated or invalid Host header field"
        case .contentLengthWithTransferEncoding: "both Content-Length and Transfer-Encoding"
        case .invalidContentLength: "invalid Content-Length"
        case .conflictingContentLength: "differing Content-Length values"
        case .unsupportedTransferEncoding: "unsupported transfer coding"
        case .invalidTransferEncoding: "invalid Transfer-Encoding"
        case .invalidChunkSize: "invalid chunk size line"
        case .invalidChunkData: "chunk data or trailer line not ended by CRLF"
        case .bodyTooLarge: "request body too large"
        }
    }
}

/// The sizes a request may not exceed. Defaults follow common servers.
public struct HTTPParserLimits: Sendable, Equatable {
    /// Longest request-line, without its CRLF (414 beyond).
    public var maxRequestLineBytes: Int
    /// Longest header block: request-line, field lines and line ends; also bounds a chunked
    /// body's trailer section (431 beyond).
    public var maxHeaderBytes: Int
    /// Most field lines (431 beyond).
    public var maxHeaderCount: Int
    /// Largest body after de-chunking (413 beyond).
    public var maxBodyBytes: Int

    /// Limits; the defaults are 8 KiB, 32 KiB, 100 fields and 1 MiB.
    public init(maxRequestLineBytes: Int = 8192, maxHeaderBytes: Int = 32768, maxHeaderCount: Int = 100,
                maxBodyBytes: Int = 1 << 20) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }
}

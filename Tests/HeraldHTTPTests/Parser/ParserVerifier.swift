@testable import HeraldHTTP

/// The fields of a parsed request a test compares.
struct ParsedRequest: Equatable, CustomStringConvertible {
    var method: String
    var target: String
    var path: String
    var query: String?
    var headers: [String]
    var body: String
    var keepAlive: Bool

    init(_ method: String, _ target: String, path: String? = nil, query: String? = nil, headers: [String],
         body: String = "", keepAlive: Bool = true) {
        self.method = method
        self.target = target
        self.path = path ?? target
        self.query = query
        self.headers = headers
        self.body = body
        self.keepAlive = keepAlive
    }

    init(_ request: HTTPRequest) {
        self.init(request.method.rawValue, request.target, path: request.path, query: request.query,
                  headers: request.headers.map { "\($0.name): \($0.value)" },
                  body: String(decoding: request.body, as: UTF8.self), keepAlive: request.keepAlive)
    }

    var description: String { "\(method) \(target) \(headers) body=\(body.debugDescription) keepAlive=\(keepAlive)" }
}

/// What a connection would see after feeding some input: the requests in order, then either an
/// error or the count of bytes still waiting for more.
struct ParseOutcome: Equatable, CustomStringConvertible {
    var requests: [ParsedRequest]
    var error: HTTPParseError?
    var leftover: Int

    var description: String { "\(requests) error=\(String(describing: error)) leftover=\(leftover)" }
}

/// Feeds inputs to a parser the way swift-nio's ByteToMessageDecoderVerifier does: all at once,
/// one byte at a time, and split in two at every position. Every way must give the same outcome.
enum ParserVerifier {
    /// Runs one feeding: appends each piece to a buffer and drains every complete request. A
    /// request whose body `streaming` streams is put back together from its head and parts.
    static func feed(_ pieces: [ArraySlice<UInt8>], limits: HTTPParserLimits, streaming: BodyStreamingRule? = nil) -> ParseOutcome {
        var parser = HTTPRequestParser(limits: limits, streaming: streaming)
        var buffer: [UInt8] = []
        var requests: [ParsedRequest] = []
        var streamed: (request: HTTPRequest, body: [UInt8])?
        for piece in pieces {
            buffer += piece
            while true {
                switch parser.parse(buffer) {
                case .needMore:
                    break
                case .request(let request, let consumed):
                    requests.append(ParsedRequest(request))
                    buffer.removeFirst(consumed)
                    continue
                case .head(let request, let consumed, _):
                    streamed = (request, [])
                    buffer.removeFirst(consumed)
                    continue
                case .bodyPart(let part, let consumed, let last):
                    streamed?.body += part
                    buffer.removeFirst(consumed)
                    if last, var (request, body) = streamed {
                        swap(&request.body, &body)
                        requests.append(ParsedRequest(request))
                        streamed = nil
                    }
                    continue
                case .error(let error):
                    return ParseOutcome(requests: requests, error: error, leftover: 0)
                }
                break
            }
        }
        return ParseOutcome(requests: requests, error: nil, leftover: buffer.count)
    }

    /// Every feeding of `input`, labelled, with its outcome.
    static func allFeedings(_ input: [UInt8], limits: HTTPParserLimits, streaming: BodyStreamingRule? = nil) -> [(String, ParseOutcome)] {
        var results = [("all at once", feed([input[...]], limits: limits, streaming: streaming))]
        results.append(("byte by byte", feed(input.indices.map { input[$0...$0] }, limits: limits, streaming: streaming)))
        for split in 1..<max(input.count, 1) {
            results.append(("split at \(split)", feed([input[..<split], input[split...]], limits: limits, streaming: streaming)))
        }
        return results
    }
}

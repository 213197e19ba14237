import Testing
@testable import HeraldHTTP

/// Streaming every body must change nothing a handler sees: the same requests, the same bodies,
/// the same refusals, however the bytes arrive; only the parser no longer holds the body.
@Suite struct StreamedBodyParserTests {
    static let streamEverything: BodyStreamingRule = { _ in HTTPParserLimits().maxBodyBytes }

    static let inputs = [
        "POST /f HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world",
        "POST /u HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 1\r\n\r\n",
        "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabcGET /b HTTP/1.1\r\nHost: h\r\n\r\n"
            + "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n",
        "POST /empty HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ]

    @Test(arguments: inputs)
    func aStreamedBodyReadsAsTheWholeOneHoweverItArrives(input: String) {
        let whole = ParserVerifier.feed([Array(input.utf8)[...]], limits: HTTPParserLimits())
        #expect(whole.error == nil && !whole.requests.isEmpty)
        for (feeding, outcome) in ParserVerifier.allFeedings(Array(input.utf8), limits: HTTPParserLimits(), streaming: Self.streamEverything) {
            #expect(outcome.requests == whole.requests && outcome.error == nil, "\(feeding): \(outcome)")
            if outcome.requests != whole.requests { return }
        }
    }

    @Test(arguments: RequestCorpus.malformed.map(\.name))
    func aMalformedRequestIsRefusedAlikeWhenItsBodyStreams(name: String) throws {
        let entry = try #require(RequestCorpus.malformed.first { $0.name == name })
        for pieces in [[entry.bytes[...]], entry.bytes.indices.map { entry.bytes[$0...$0] }] {
            let outcome = ParserVerifier.feed(pieces, limits: HTTPParserLimits(), streaming: Self.streamEverything)
            #expect(outcome.requests.isEmpty && outcome.error?.status == entry.status, "\(name): \(outcome)")
        }
    }

    @Test func onlyTheRequestsTheRuleNamesStreamAndEachHasItsOwnLimit() {
        let rule: BodyStreamingRule = { $0.path == "/import" ? 100 : nil }
        var parser = HTTPRequestParser(limits: HTTPParserLimits(maxBodyBytes: 10), streaming: rule)
        let fifty = String(repeating: "x", count: 50)
        // Fifty bytes: over the body limit, within the route's own.
        guard case .head(let head, let consumed, false) = parser.parse(Array("POST /import HTTP/1.1\r\nHost: h\r\nContent-Length: 50\r\n\r\n\(fifty)".utf8)) else {
            Issue.record("expected the head of a streamed request")
            return
        }
        #expect(head.path == "/import" && head.body.isEmpty && consumed == 54)
        guard case .bodyPart(let part, 50, true) = parser.parse(Array(fifty.utf8)) else {
            Issue.record("expected the whole body as the last part")
            return
        }
        #expect(part == Array(fifty.utf8))
        // The next request is parsed as ever: another route keeps the body limit, and the head
        // says it at once.
        guard case .request(let other, _) = parser.parse(Array("POST /other HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc".utf8)) else {
            Issue.record("expected a whole request")
            return
        }
        #expect(other.body == Array("abc".utf8) && other.bodyStream == nil)
        var refused = HTTPRequestParser(limits: HTTPParserLimits(maxBodyBytes: 10), streaming: rule)
        #expect(refused.parse(Array("POST /other HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n".utf8)).refusal == .bodyTooLarge)
        // Over the route's own limit: the head still goes to its handler (to answer in its own
        // words), refused already, and the body is never read.
        var overOwn = HTTPRequestParser(limits: HTTPParserLimits(maxBodyBytes: 10), streaming: rule)
        guard case .head(let over, _, false) = overOwn.parse(Array("POST /import HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\nExpect: 100-continue\r\n\r\n".utf8)) else {
            Issue.record("expected the head of the refused request")
            return
        }
        #expect(over.path == "/import" && overOwn.refusesBody)
        #expect(overOwn.parse(Array(String(repeating: "x", count: 101).utf8)).refusal == .bodyTooLarge)
    }

    @Test func aChunkedBodyOverItsLimitIsRefusedAfterThePartsWithin() {
        var parser = HTTPRequestParser(streaming: { _ in 100 })
        guard case .head = parser.parse(Array("POST /i HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)) else {
            Issue.record("expected a head")
            return
        }
        let sixty = "3c\r\n" + String(repeating: "y", count: 60) + "\r\n"
        guard case .bodyPart(let part, let consumed, false) = parser.parse(Array(sixty.utf8)) else {
            Issue.record("expected a part")
            return
        }
        #expect(part.count == 60 && consumed == sixty.utf8.count)
        #expect(parser.parse(Array(sixty.utf8)).refusal == .bodyTooLarge)
    }

    /// The parser hands over every body byte it has: the connection's buffer never holds more
    /// than one read and a chunk-size line, whatever the body's size.
    @Test(arguments: [false, true])
    func partsTakeTheirBytesSoTheBufferStaysSmall(chunked: Bool) {
        let size = 1 << 20
        let body = [UInt8]((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) })
        var wire = Array("POST /i HTTP/1.1\r\nHost: h\r\n\(chunked ? "Transfer-Encoding: chunked" : "Content-Length: \(size)")\r\n\r\n".utf8)
        if chunked {
            for start in stride(from: 0, to: size, by: 1000) {
                let end = min(start + 1000, size)
                wire += Array("\(String(end - start, radix: 16))\r\n".utf8) + body[start..<end] + Array("\r\n".utf8)
            }
            wire += Array("0\r\n\r\n".utf8)
        }
        else { wire += body }
        var parser = HTTPRequestParser(streaming: { _ in 2 << 20 })
        var buffer: [UInt8] = []
        var received: [UInt8] = []
        var largestBuffer = 0
        var finished = false
        for start in stride(from: 0, to: wire.count, by: 4096) {
            buffer += wire[start..<min(start + 4096, wire.count)]
            largestBuffer = max(largestBuffer, buffer.count)
            parsing: while true {
                switch parser.parse(buffer) {
                case .head(_, let consumed, _):
                    buffer.removeFirst(consumed)
                case .bodyPart(let part, let consumed, let last):
                    received += part
                    buffer.removeFirst(consumed)
                    finished = last
                    if last || consumed == 0 { break parsing }
                case .needMore:
                    break parsing
                case .request, .error:
                    Issue.record("unexpected \(parser.parse(buffer))")
                    return
                }
            }
        }
        #expect(finished && received == body && buffer.isEmpty)
        #expect(largestBuffer < 4096 + 16, "the buffer held \(largestBuffer) bytes")
    }
}

extension HTTPParseResult {
    /// The error of a refusal, for comparing.
    var refusal: HTTPParseError? {
        if case .error(let error) = self { return error }
        return nil
    }
}

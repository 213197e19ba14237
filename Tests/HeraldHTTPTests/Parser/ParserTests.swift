import Testing
@testable import HeraldHTTP

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Asserts that every feeding of `input` gives exactly `requests` followed by `error`.
private func verify(_ input: String, _ requests: [ParsedRequest], error: HTTPParseError? = nil, leftover: Int = 0,
                    limits: HTTPParserLimits = HTTPParserLimits(), sourceLocation: SourceLocation = #_sourceLocation) {
    let expected = ParseOutcome(requests: requests, error: error, leftover: error == nil ? leftover : 0)
    for (feeding, outcome) in ParserVerifier.allFeedings(bytes(input), limits: limits) {
        #expect(outcome == expected, "\(feeding)", sourceLocation: sourceLocation)
        if outcome != expected { return }
    }
}

@Suite struct ParserAcceptsValidRequests {
    @Test func simpleGet() {
        verify("GET /healthz HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n",
               [ParsedRequest("GET", "/healthz", headers: ["Host: example.com", "Accept: */*"])])
    }

    @Test func targetSplitsIntoPathAndQuery() {
        verify("GET /a/b%20c?x=1&y=a+b HTTP/1.1\r\nHost: h\r\n\r\n",
               [ParsedRequest("GET", "/a/b%20c?x=1&y=a+b", path: "/a/b%20c", query: "x=1&y=a+b", headers: ["Host: h"])])
    }

    @Test func absoluteFormTargetRoutesByItsPath() {
        verify("GET http://example.com:8080/p/q?z HTTP/1.1\r\nHost: example.com\r\n\r\n",
               [ParsedRequest("GET", "http://example.com:8080/p/q?z", path: "/p/q", query: "z", headers: ["Host: example.com"])])
    }

    @Test func contentLengthBody() {
        verify("POST /f HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world",
               [ParsedRequest("POST", "/f", headers: ["Host: h", "Content-Length: 11"], body: "hello world")])
    }

    @Test func identicalRepeatedContentLengthIsOneValue() {
        verify("POST /f HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc",
               [ParsedRequest("POST", "/f", headers: ["Host: h", "Content-Length: 3, 3", "Content-Length: 3"], body: "abc")])
    }

    @Test func chunkSizesMayHaveLeadingZerosAndQuotedExtensions() {
        verify("POST /u HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
               + "0000000000000000000000005 ; a = \"b;\\\"c\" ;d\r\nhello\r\n0\r\n\r\n",
               [ParsedRequest("POST", "/u", headers: ["Host: h", "Transfer-Encoding: chunked"], body: "hello")])
    }

    @Test func chunkedBodyWithExtensionsAndTrailers() {
        verify("POST /u HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
               + "5;name=value\r\nhello\r\n6 ; x\r\n world\r\n0\r\nChecksum: abc\r\n\r\n",
               [ParsedRequest("POST", "/u", headers: ["Host: h", "Transfer-Encoding: chunked"], body: "hello world")])
    }

    /// Empty lines before the request-line are skipped (RFC 9112 §2.2); inside the head every
    /// line ends with CRLF (a bare LF is refused with the other malformed requests).
    @Test func leadingEmptyLinesAreTolerated() {
        verify("\r\n\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", [ParsedRequest("GET", "/", headers: ["Host: h"])])
    }

    @Test func valueWhitespaceIsTrimmedAndObsTextKept() {
        verify("GET / HTTP/1.1\r\nHost:h\r\nX-Name: \t caf\u{e9} au lait \t\r\nX-Empty:\r\n\r\n",
               [ParsedRequest("GET", "/", headers: ["Host: h", "X-Name: caf\u{e9} au lait", "X-Empty: "])])
    }

    @Test func keepAliveFollowsVersionAndConnection() {
        verify("GET / HTTP/1.0\r\n\r\n", [ParsedRequest("GET", "/", headers: [], keepAlive: false)])
        verify("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
               [ParsedRequest("GET", "/", headers: ["Connection: Keep-Alive"], keepAlive: true)])
        verify("GET / HTTP/1.1\r\nHost: h\r\nConnection: foo, close\r\n\r\n",
               [ParsedRequest("GET", "/", headers: ["Host: h", "Connection: foo, close"], keepAlive: false)])
    }

    @Test func hostMayBeAnIPLiteralWithPort() {
        verify("GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", [ParsedRequest("GET", "/", headers: ["Host: [::1]:8080"])])
    }

    @Test func higherMinorVersionIsServedAsHTTP11() {
        verify("GET / HTTP/1.2\r\nHost: h\r\n\r\n", [ParsedRequest("GET", "/", headers: ["Host: h"])])
    }

    @Test func pipelinedRequestsInOneBuffer() {
        verify("GET /1 HTTP/1.1\r\nHost: h\r\n\r\n"
               + "POST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nab"
               + "PUT /3 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nc\r\n0\r\n\r\n"
               + "GET /4 HTTP/1.1\r\nHost:",
               [ParsedRequest("GET", "/1", headers: ["Host: h"]),
                ParsedRequest("POST", "/2", headers: ["Host: h", "Content-Length: 2"], body: "ab"),
                ParsedRequest("PUT", "/3", headers: ["Host: h", "Transfer-Encoding: chunked"], body: "c")],
               leftover: "GET /4 HTTP/1.1\r\nHost:".utf8.count)
    }

    @Test func errorAfterAValidPipelinedRequest() {
        verify("GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\n\r\n",
               [ParsedRequest("GET", "/1", headers: ["Host: h"])], error: .invalidHost)
    }

    @Test func incompleteRequestsNeedMore() {
        verify("GET / HTTP/1.1\r\nHost: h\r\n", [], leftover: 25)
        verify("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nabc", [], leftover: 50)
    }

    @Test func expectContinueIsReportedWhileTheBodyIsAwaited() {
        var parser = HTTPRequestParser()
        let head = bytes("PUT /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        guard case .needMore = parser.parse(head) else { Issue.record("expected needMore"); return }
        #expect(parser.expectsContinue && parser.isReceivingBody)
        guard case .request(let request, let consumed) = parser.parse(head + bytes("ok")) else { Issue.record("expected a request"); return }
        #expect(request.body == bytes("ok") && consumed == head.count + 2)
        #expect(!parser.expectsContinue && !parser.isReceivingBody)
    }
}

@Suite struct ParserRefusesMalformedRequests {
    static let cases: [(String, HTTPParseError)] = [
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", .contentLengthWithTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", .contentLengthWithTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", .conflictingContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 4\r\n\r\nabcd", .conflictingContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +1\r\n\r\na", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1 2\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x10\r\n\r\n", .invalidContentLength),
        ("GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n  continued\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\n\tHost: h\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost: h\r\nBad(Name: x\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost: h\r\n: empty\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost : h\r\n\r\n", .whitespaceBeforeColon),
        ("GET / HTTP/1.1\r\nHost\t: h\r\n\r\n", .whitespaceBeforeColon),
        ("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", .bareCarriageReturn),
        ("GET /\r HTTP/1.1\r\nHost: h\r\n\r\n", .bareCarriageReturn),
        ("\rGET / HTTP/1.1\r\nHost: h\r\n\r\n", .bareCarriageReturn),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n", .invalidHeaderValue),
        ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{7f}b\r\n\r\n", .invalidHeaderValue),
        ("GET /a\u{0}b HTTP/1.1\r\nHost: h\r\n\r\n", .invalidRequestLine),
        ("GET / HTTP/1.1\r\nHost: h\r\nX\u{0}: y\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: a\"b\r\n\r\n", .invalidHost),
        // RFC 9112 §6.3 item 4: chunked not last means the body cannot be framed: 400, not 501.
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", .invalidTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", .invalidTransferEncoding),
        // A bare LF inside the head: behind a proxy that passes it in a value, a second request.
        ("GET / HTTP/1.1\r\nHost: localhost\r\nDummy: x\nContent-Length: 23\r\n\r\nGET / HTTP/1.1\r\nDummy: GET /admin HTTP/1.1\r\n", .bareLineFeed),
        ("GET / HTTP/1.1\nHost: h\n\n", .bareLineFeed),
        ("GET / HTTP/1.1\r\nHost:\r\n\r\n", .invalidHost),
        ("GET * HTTP/1.1\r\nHost: h\r\n\r\n", .invalidRequestLine),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", .invalidTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", .invalidTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: ,\r\n\r\n", .invalidTransferEncoding),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .invalidTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff1\r\n", .invalidChunkSize),
        // chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] ) (RFC 9112 §7.1.1).
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;bad[=x\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\"open\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n", .invalidChunkData),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\r\n0\r\n\r\n", .invalidChunkData),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nBad Trailer: x\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", .unsupportedVersion),
        ("GET / HTTP/0.9\r\nHost: h\r\n\r\n", .unsupportedVersion),
        ("GET / http/1.1\r\nHost: h\r\n\r\n", .invalidRequestLine),
        ("GET / HTTP/1.1x\r\nHost: h\r\n\r\n", .invalidRequestLine),
        ("GET / HTTP/11\r\nHost: h\r\n\r\n", .invalidRequestLine),
        ("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidRequestLine),
        ("GET /\r\nHost: h\r\n\r\n", .invalidRequestLine),
        ("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidRequestLine),
        ("GET /caf\u{e9} HTTP/1.1\r\nHost: h\r\n\r\n", .invalidRequestLine),
    ]

    /// A case shown with its escapes in the test log, one line each.
    struct Case: CustomTestStringConvertible {
        let input: String
        let error: HTTPParseError
        var testDescription: String { "\(input.debugDescription) → \(error)" }
    }

    @Test(arguments: cases.map { Case(input: $0.0, error: $0.1) })
    func refusedWithThePreciseError(_ example: Case) {
        verify(example.input, [], error: example.error)
    }

    @Test func statusesMatchTheRFC() {
        #expect(HTTPParseError.unsupportedVersion.status == 505)
        #expect(HTTPParseError.unsupportedTransferEncoding.status == 501)
        #expect(HTTPParseError.contentLengthWithTransferEncoding.status == 400)
    }
}

@Suite struct ParserEnforcesLimits {
    let limits = HTTPParserLimits(maxRequestLineBytes: 32, maxHeaderBytes: 96, maxHeaderCount: 3, maxBodyBytes: 10)

    @Test func requestLineAtTheLimitIsAcceptedOneMoreIs414() {
        let atLimit = "GET /" + String(repeating: "a", count: 18) + " HTTP/1.1"  // 32 bytes
        verify(atLimit + "\r\nHost: h\r\n\r\n", [ParsedRequest("GET", "/" + String(repeating: "a", count: 18), headers: ["Host: h"])],
               limits: limits)
        verify("GET /" + String(repeating: "a", count: 19) + " HTTP/1.1\r\nHost: h\r\n\r\n", [], error: .requestLineTooLong, limits: limits)
        // Without any line end the request-line is refused as soon as it passes the limit.
        verify("GET /" + String(repeating: "a", count: 40), [], error: .requestLineTooLong, limits: limits)
    }

    @Test func headerBlockOverTheLimitIs431() {
        verify("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 80) + "\r\n\r\n", [],
               error: .headersTooLarge, limits: limits)
        verify("GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 200), [], error: .headersTooLarge, limits: limits)
    }

    @Test func headerCountOverTheLimitIs431() {
        verify("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n",
               [ParsedRequest("GET", "/", headers: ["Host: h", "A: 1", "B: 2"])], limits: limits)
        verify("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", [], error: .tooManyHeaders, limits: limits)
    }

    @Test func bodyOverTheLimitIs413BeforeItIsSent() {
        verify("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", [], error: .bodyTooLarge, limits: limits)
        verify("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", [], error: .bodyTooLarge, limits: limits)
        verify("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789",
               [ParsedRequest("POST", "/", headers: ["Host: h", "Content-Length: 10"], body: "0123456789")], limits: limits)
    }

    @Test func chunkedBodyOverTheLimitIs413() {
        verify("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n5\r\n", [],
               error: .bodyTooLarge, limits: limits)
    }

    @Test func chunkFramingMayNotOutweighTheBody() {
        let flood = String(repeating: "1;" + String(repeating: "e", count: 40) + "\r\nX\r\n", count: 4)
        verify("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + flood, [], error: .bodyTooLarge, limits: limits)
        verify("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1;e\r\nX\r\n0\r\n\r\n",
               [ParsedRequest("POST", "/", headers: ["Host: h", "Transfer-Encoding: chunked"], body: "X")], limits: limits)
    }

    @Test func trailerSectionCountsAgainstTheHeaderLimit() {
        verify("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: " + String(repeating: "t", count: 120) + "\r\n\r\n",
               [], error: .headersTooLarge, limits: limits)
    }
}

// The regression corpus of requests the parser must refuse, with the status each must get under
// the default limits. Plain Swift with no imports, so that deploy/fuzz/run can compile it into
// the fuzzer and write the entries out as seed files.

/// Requests for the parser tests, the live-server tests and the fuzzer's seeds.
enum RequestCorpus {
    /// A malformed or over-limit request and the status it must be answered with.
    struct Entry {
        let name: String
        let status: Int
        let bytes: [UInt8]

        init(_ name: String, _ status: Int, _ text: String) {
            self.name = name
            self.status = status
            self.bytes = Array(text.utf8)
        }
    }

    static let malformed: [Entry] = [
        // Framing conflicts: the request-smuggling classics (RFC 9112 §6.1, §6.3).
        Entry("cl-and-te", 400, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        Entry("te-and-cl", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n"),
        Entry("te-space-before-colon", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n"),
        Entry("te-obs-fold", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n"),
        Entry("te-chunked-twice", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n"),
        Entry("te-in-http10", 400, "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        Entry("te-empty", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\r\n\r\n"),
        Entry("te-xchunked", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n"),
        Entry("te-gzip-chunked", 501, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
        Entry("cl-differing", 400, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"),
        Entry("cl-list-differing", 400, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2, 1\r\n\r\nab"),
        Entry("cl-negative", 400, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n"),
        Entry("cl-plus", 400, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +2\r\n\r\nab"),
        Entry("cl-hex", 400, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x2\r\n\r\nab"),
        Entry("cl-exponent", 400, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1e3\r\n\r\n"),
        Entry("cl-empty", 400, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n"),
        Entry("cl-inner-space", 400, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 0\r\n\r\n"),
        // Chunked bodies (RFC 9112 §7.1).
        Entry("chunk-size-not-hex", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
        Entry("chunk-size-0x", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\nab\r\n0\r\n\r\n"),
        Entry("chunk-size-leading-space", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n 2\r\nab\r\n0\r\n\r\n"),
        Entry("chunk-size-overflow", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000002\r\nab\r\n0\r\n\r\n"),
        Entry("chunk-size-bare-lf", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\nab\r\n0\r\n\r\n"),
        Entry("chunk-data-too-long", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n"),
        Entry("chunk-ext-control-char", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2;a=\u{1}\r\nab\r\n0\r\n\r\n"),
        Entry("chunk-trailer-bad-name", 400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nBad Name: x\r\n\r\n"),
        // Lines and characters (RFC 9112 §2.2, §5).
        Entry("bare-cr-in-value", 400, "GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n"),
        Entry("bare-cr-line-end", 400, "GET / HTTP/1.1\rHost: a\r\n\r\n"),
        Entry("nul-in-value", 400, "GET / HTTP/1.1\r\nHost: a\r\nX: a\u{0}b\r\n\r\n"),
        Entry("nul-in-target", 400, "GET /\u{0} HTTP/1.1\r\nHost: a\r\n\r\n"),
        Entry("nul-in-method", 400, "G\u{0}T / HTTP/1.1\r\nHost: a\r\n\r\n"),
        Entry("obs-fold", 400, "GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n\t2\r\n\r\n"),
        Entry("space-in-name", 400, "GET / HTTP/1.1\r\nHost: a\r\nX Y: 1\r\n\r\n"),
        Entry("space-before-colon", 400, "GET / HTTP/1.1\r\nHost : a\r\n\r\n"),
        Entry("non-token-name", 400, "GET / HTTP/1.1\r\nHost: a\r\nX@Y: 1\r\n\r\n"),
        Entry("non-ascii-name", 400, "GET / HTTP/1.1\r\nHost: a\r\nN\u{e9}: 1\r\n\r\n"),
        Entry("no-colon", 400, "GET / HTTP/1.1\r\nHost: a\r\nJustAName\r\n\r\n"),
        Entry("empty-name", 400, "GET / HTTP/1.1\r\nHost: a\r\n: v\r\n\r\n"),
        Entry("missing-host", 400, "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n"),
        Entry("host-with-space", 400, "GET / HTTP/1.1\r\nHost: a b\r\n\r\n"),
        Entry("host-with-path", 400, "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n"),
        Entry("host-with-userinfo", 400, "GET / HTTP/1.1\r\nHost: user@a\r\n\r\n"),
        Entry("two-hosts", 400, "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n"),
        // Request-line (RFC 9112 §3).
        Entry("tabs-as-separators", 400, "GET\t/\tHTTP/1.1\r\nHost: a\r\n\r\n"),
        Entry("double-space", 400, "GET  / HTTP/1.1\r\nHost: a\r\n\r\n"),
        Entry("trailing-space", 400, "GET / HTTP/1.1 \r\nHost: a\r\n\r\n"),
        Entry("no-method", 400, "/ HTTP/1.1\r\nHost: a\r\n\r\n"),
        Entry("no-version", 400, "GET /\r\nHost: a\r\n\r\n"),
        Entry("lowercase-version", 400, "GET / http/1.1\r\nHost: a\r\n\r\n"),
        Entry("non-ascii-target", 400, "GET /\u{e9} HTTP/1.1\r\nHost: a\r\n\r\n"),
        Entry("http2-preface", 505, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
        Entry("version-3", 505, "GET / HTTP/3.0\r\nHost: a\r\n\r\n"),
        // Limits (defaults: 8 KiB request-line, 32 KiB and 100 header fields, 1 MiB body).
        Entry("long-target", 414, "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: a\r\n\r\n"),
        Entry("long-target-unterminated", 414, "GET /" + String(repeating: "a", count: 9000)),
        Entry("huge-header", 431, "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "v", count: 33000) + "\r\n\r\n"),
        Entry("many-headers", 431, "GET / HTTP/1.1\r\nHost: a\r\n" + String(repeating: "X: 1\r\n", count: 100) + "\r\n"),
        Entry("endless-empty-lines", 431, String(repeating: "\r\n", count: 17000)),
        Entry("body-too-large", 413, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n"),
        Entry("body-length-overflow", 413, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999999\r\n\r\n"),
        Entry("chunk-extension-flood", 413, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
              + String(repeating: "1;" + String(repeating: "e", count: 4000) + "\r\nX\r\n", count: 10)),
        Entry("chunked-too-large", 413, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n100001\r\n"),
    ]

    /// Well-formed requests: fuzzer seeds and a check that the corpus is not refusing everything.
    static let valid: [[UInt8]] = [
        "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /api/v1/campaigns?limit=10&cursor=abc HTTP/1.1\r\nHost: a\r\nAccept: application/json\r\nConnection: keep-alive\r\n\r\n",
        "POST /api/v1/campaigns HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{\"name\":\"x\"}\n",
        "PUT /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\nTrailer: t\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.0\r\n\r\n",
    ].map { Array($0.utf8) }
}

import Testing
@testable import HeraldHTTP

@Suite struct CorpusTests {
    @Test(arguments: RequestCorpus.malformed.map(\.name))
    func malformedRequestIsRefusedWithItsStatusHoweverItArrives(name: String) throws {
        let entry = try #require(RequestCorpus.malformed.first { $0.name == name })
        let bytes = entry.bytes
        // All at once, byte by byte, and split at a spread of positions (every one for short inputs).
        var feedings: [[ArraySlice<UInt8>]] = [[bytes[...]], bytes.indices.map { bytes[$0...$0] }]
        let step = max(1, bytes.count / 64)
        for split in stride(from: 1, to: bytes.count, by: step) { feedings.append([bytes[..<split], bytes[split...]]) }
        for pieces in feedings {
            let outcome = ParserVerifier.feed(pieces, limits: HTTPParserLimits())
            #expect(outcome.requests.isEmpty, "\(name): \(outcome.requests)")
            #expect(outcome.error?.status == entry.status, "\(name) fed in \(pieces.count) pieces: \(outcome)")
            if outcome.error?.status != entry.status { return }
        }
    }

    @Test func validRequestsParse() {
        for bytes in RequestCorpus.valid {
            let outcome = ParserVerifier.feed([bytes[...]], limits: HTTPParserLimits())
            #expect(outcome.error == nil && !outcome.requests.isEmpty && outcome.leftover == 0, "\(outcome)")
        }
    }

    @Test func liveServerAnswersEveryMalformedRequestAndCloses() throws {
        try withServer(handler: { _ in HTTPResponse(status: 200) }) { server in
            for entry in RequestCorpus.malformed {
                let client = try TestClient(port: server.port)
                try client.send(entry.bytes)
                let response = try client.readResponse()
                #expect(response.status == entry.status, "\(entry.name)")
                #expect(response.headers["Connection"] == "close", "\(entry.name)")
                // One error shape for every client: an RFC 9457 problem saying what was wrong.
                #expect(response.headers["Content-Type"] == "application/problem+json", "\(entry.name)")
                let body = String(decoding: response.body, as: UTF8.self)
                #expect(body.hasPrefix(#"{"type":"about:blank","title":""#) && body.contains(#""status":\#(entry.status),"detail":""#), "\(entry.name): \(body)")
                #expect(try client.isClosedByServer(), "\(entry.name)")
            }
            // The server is still serving after all of that.
            let client = try TestClient(port: server.port)
            try client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
    }
}

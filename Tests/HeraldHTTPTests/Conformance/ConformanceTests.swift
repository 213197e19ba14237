import Testing
@testable import HeraldHTTP

/// Runs every case of `ConformanceCases` through the pure parser — whole, byte by byte and split
/// in two — and through a live server, which must answer the verdict's status, say
/// `Connection: close` and close after a refusal, and go on serving other connections.
@Suite struct ConformanceTests {
    /// The table itself: unique names (the tests below are looked up by name), a source and an
    /// RFC section on every case, and refusals with a status the parser can give.
    @Test func tableIsWellFormed() {
        let names = ConformanceCases.all.map(\.name)
        #expect(Set(names).count == names.count, "duplicate names: \(Dictionary(grouping: names) { $0 }.filter { $1.count > 1 }.keys.sorted())")
        #expect(ConformanceCases.all.count >= 150)
        for entry in ConformanceCases.all {
            #expect(entry.source.hasPrefix("llhttp ") || entry.source.hasPrefix("Http11Probe ") || entry.source.hasPrefix("Herald"), "\(entry.name)")
            #expect(entry.rfc.hasPrefix("RFC "), "\(entry.name)")
            if case .reject(let status, _) = entry.verdict {
                #expect([400, 413, 414, 431, 501, 505].contains(status), "\(entry.name)")
            }
        }
    }

    @Test(arguments: ConformanceCases.all.map(\.name))
    func parserGivesTheVerdictHoweverTheBytesArrive(name: String) throws {
        let entry = try #require(ConformanceCases.all.first { $0.name == name })
        let bytes = entry.bytes
        // All at once, byte by byte, and split at every position (a spread of 64 for long inputs,
        // whose limits are what is tested, not the splitting).
        var feedings: [(String, [ArraySlice<UInt8>])] = [("all at once", [bytes[...]]), ("byte by byte", bytes.indices.map { bytes[$0...$0] })]
        let step = bytes.count > 2048 ? max(1, bytes.count / 64) : 1
        for split in stride(from: 1, to: bytes.count, by: step) { feedings.append(("split at \(split)", [bytes[..<split], bytes[split...]])) }
        for (label, pieces) in feedings {
            let outcome = ParserVerifier.feed(pieces, limits: HTTPParserLimits())
            let context = "\(entry) fed \(label): \(outcome)"
            switch entry.verdict {
            case .accept(let count, let body):
                #expect(outcome.error == nil && outcome.requests.count == count && outcome.leftover == 0, "\(context)")
                if let body { #expect(outcome.requests.last?.body == body, "\(context)") }
                if outcome.error != nil || outcome.requests.count != count { return }
            case .reject(let status, let after):
                #expect(outcome.error?.status == status && outcome.requests.count == after, "\(context)")
                if outcome.error?.status != status { return }
            }
        }
    }

    @Test func liveServerGivesEveryVerdictAndKeepsServing() throws {
        // The handler echoes the body, so an accepted body is checked on the wire too.
        try withServer(handler: { request in HTTPResponse(status: 200, body: request.body) }) { server in
            for entry in ConformanceCases.all {
                let client = try TestClient(port: server.port)
                try client.send(entry.bytes)
                switch entry.verdict {
                case .accept(let count, let body):
                    for index in 0..<count {
                        let response = try client.readResponse()
                        #expect(response.status == 200, "\(entry) response \(index + 1)")
                        if let body, index == count - 1 { #expect(response.text == body, "\(entry)") }
                    }
                case .reject(let status, let after):
                    for index in 0..<after {
                        #expect(try client.readResponse().status == 200, "\(entry) response \(index + 1)")
                    }
                    let response = try client.readResponse()
                    #expect(response.status == status, "\(entry)")
                    #expect(response.headers["Connection"] == "close", "\(entry)")
                    #expect(try client.isClosedByServer(), "\(entry): the connection stayed open after \(status)")
                }
            }
            // Nothing above broke the server for the next client.
            let client = try TestClient(port: server.port)
            try client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
    }
}

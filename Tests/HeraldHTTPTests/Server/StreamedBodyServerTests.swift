import Glibc
import HeraldSync
import Testing
@testable import HeraldHTTP

/// Routes that stream their bodies, over real sockets: a body far over the server's body limit
/// arrives whole while the server holds about a megabyte of it; a handler that answers early, a
/// client that goes away or stalls, and too many uploads at once all end cleanly.
@Suite(.serialized) struct StreamedBodyServerTests {
    static let imports: BodyStreamingRule = { $0.path == "/import" ? 64 << 20 : nil }

    static var smallBodies: HTTPServer.Configuration {
        var configuration = HTTPServer.Configuration()
        configuration.maxBodyBytes = 1024
        return configuration
    }

    static func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 13) } }

    /// Order-sensitive, so parts out of order would show. Over the buffer, not the array: a debug
    /// build's generic loop over an array's bytes made this the test's slowest part.
    static func checksum(_ bytes: [UInt8], into sum: inout UInt64) {
        bytes.withUnsafeBufferPointer { buffer in
            for byte in buffer { sum = sum &* 31 &+ UInt64(byte) }
        }
    }

    /// Reads the whole body, pausing now and then like a handler writing batches to a database,
    /// and answers its length, checksum and the most of it that ever waited unread.
    static let summing: HTTPHandler = { request in
        guard let stream = request.bodyStream else { return HTTPResponse(status: 200, text: "whole \(request.body.count)") }
        var (sum, count, parts): (UInt64, Int, Int) = (0, 0, 0)
        do {
            while let part = try stream.next() {
                checksum(part, into: &sum)
                count += part.count
                parts += 1
                // The pause is the test's: a handler slower than its client, so the body backs up.
                if parts % 32 == 0 { sleep(milliseconds: 2) }
            }
        } catch let error as RequestBodyError {
            return HTTPResponse(status: error.status, text: error.detail)
        } catch {
            return HTTPResponse(status: 500)
        }
        return HTTPResponse(status: 200, text: "\(count) \(sum) \(stream.peakQueuedBytes)")
    }

    @Test(arguments: [false, true])
    func aBodyFarOverTheLimitArrivesWholeWhileTheServerHoldsLittleOfIt(chunked: Bool) throws {
        let size = 8 << 20
        let body = Self.pattern(size)
        var expected: UInt64 = 0
        Self.checksum(body, into: &expected)
        try withServer(Self.smallBodies, streaming: Self.imports, handler: Self.summing) { server in
            let client = try TestClient(port: server.port, timeout: 30)
            if chunked {
                try client.send("POST /import HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
                for start in stride(from: 0, to: size, by: 100_000) {
                    let end = min(start + 100_000, size)
                    try client.send(Array("\(String(end - start, radix: 16))\r\n".utf8) + body[start..<end] + Array("\r\n".utf8))
                }
                try client.send("0\r\n\r\n")
            } else {
                try client.send(Array("POST /import HTTP/1.1\r\nHost: t\r\nContent-Length: \(size)\r\n\r\n".utf8) + body)
            }
            let response = try client.readResponse()
            let fields = response.text.split(separator: " ").map(String.init)
            #expect(response.status == 200 && fields.count == 3, "\(response.status) \(response.text)")
            #expect(fields.first == String(size) && fields.dropFirst().first == String(expected))
            let peak = Int(fields.last ?? "") ?? .max
            #expect(peak <= RequestBodyStream.highWater + EventLoop.streamedReadBytes, "\(peak) bytes waited unread at once")
            #expect(response.headers["Connection"] == nil)
            // The connection carries on with the next request, whose body is held whole as ever.
            try client.send("POST /other HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
            #expect(try client.readResponse().text == "whole 5")
            // Another route keeps the body limit.
            try client.send("POST /other HTTP/1.1\r\nHost: t\r\nContent-Length: 1025\r\n\r\n")
            #expect(try client.readResponse().status == 413)
        }
    }

    @Test func aHandlerThatAnswersBeforeTheEndClosesTheConnection() throws {
        let read = Locked(0)
        let handler: HTTPHandler = { request in
            _ = try? request.bodyStream?.next()
            read.withLock { $0 += 1 }
            return HTTPResponse(status: 415, text: "not that")
        }
        try withServer(Self.smallBodies, streaming: Self.imports, handler: handler) { server in
            let client = try TestClient(port: server.port)
            try client.send("POST /import HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n" + String(repeating: "a", count: 5000))
            let response = try client.readResponse()
            #expect(response.status == 415 && response.headers["Connection"] == "close")
            #expect(try client.isClosedByServer())
            #expect(read.withLock { $0 } == 1)
        }
    }

    /// A handler that reads until the body ends or fails, keeps the failure and signals `done`.
    final class Reader: Sendable {
        let failure = Locked<RequestBodyError?>(nil)
        let reading = TestSemaphore()
        let done = TestSemaphore()

        var handler: HTTPHandler {
            { [self] request in
                reading.signal()
                do {
                    while try request.bodyStream?.next() != nil {}
                } catch let error as RequestBodyError {
                    failure.withLock { $0 = error }
                } catch {}
                done.signal()
                return HTTPResponse(status: 200)
            }
        }
    }

    @Test func aClientThatGoesAwayMidBodyEndsTheHandlersReadWithAnError() throws {
        let reader = Reader()
        let (failure, reading, done) = (reader.failure, reader.reading, reader.done)
        try withServer(Self.smallBodies, streaming: Self.imports, handler: reader.handler) { server in
            let client = try TestClient(port: server.port)
            try client.send("POST /import HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n" + String(repeating: "a", count: 5000))
            #expect(reading.wait(seconds: 120), "the handler never started")  // the client goes mid-body, not before
            client.finishSending()
            #expect(done.wait(seconds: 5), "the handler was left waiting for the rest of the body")
            #expect(failure.withLock { $0?.reason } == .closed)
        }
    }

    /// A server stopping while an upload is half sent waits out its grace period, then closes the
    /// connection, and the handler's read ends instead of waiting for bytes that will never come.
    @Test func aShutdownDuringAnUploadEndsTheHandlersRead() throws {
        var configuration = Self.smallBodies
        configuration.shutdownGracePeriod = .milliseconds(300)
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.log = { _ in }
        let reader = Reader()
        let (failure, reading, done) = (reader.failure, reader.reading, reader.done)
        let server = HTTPServer(configuration: configuration, streaming: Self.imports, handler: reader.handler)
        try server.start()
        let client = try TestClient(port: server.port)
        try client.send("POST /import HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n" + String(repeating: "a", count: 5000))
        #expect(reading.wait(seconds: 5))
        let started = monotonicNanoseconds()
        server.shutdown()
        server.wait()
        #expect(monotonicNanoseconds() - started < 3_000_000_000, "the server took too long to stop")
        #expect(done.wait(seconds: 5), "the handler was left waiting for the rest of the body")
        #expect(failure.withLock { $0?.reason } == .closed)
    }

    @Test func aStalledBodyEndsTheHandlersReadAfterTheBodyTimeout() throws {
        var configuration = Self.smallBodies
        configuration.bodyTimeout = .milliseconds(300)
        try withServer(configuration, streaming: Self.imports, handler: Self.summing) { server in
            let client = try TestClient(port: server.port)
            try client.send("POST /import HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\nabc")
            let response = try client.readResponse()
            #expect(response.status == 408 && response.headers["Connection"] == "close", "\(response.status) \(response.text)")
            #expect(try client.isClosedByServer())
        }
    }

    @Test func aChunkedBodyOverTheRoutesLimitStopsWith413() throws {
        try withServer(Self.smallBodies, streaming: { $0.path == "/import" ? 10_000 : nil }, handler: Self.summing) { server in
            let client = try TestClient(port: server.port)
            try client.send("POST /import HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
            try client.send("1f40\r\n" + String(repeating: "b", count: 8000) + "\r\n")
            try client.send("1f40\r\n" + String(repeating: "b", count: 8000) + "\r\n")
            let response = try client.readResponse()
            #expect(response.status == 413 && response.headers["Connection"] == "close", "\(response.status) \(response.text)")
        }
    }

    /// A body that says it is over the route's limit is never read, but its handler still runs
    /// and answers in its own words (a page in the user's language): its first read fails as too
    /// large at once, no `100 Continue` asks for the body, and the answer closes the connection.
    @Test func aLengthOverTheRoutesLimitIsTheHandlersToAnswer() throws {
        let reader = Reader()
        let failure = reader.failure
        let handler: HTTPHandler = { request in
            _ = reader.handler(request)
            let reason = failure.withLock { $0?.reason }
            return HTTPResponse(status: reason == .tooLarge ? 413 : 500, text: "the handler's own words")
        }
        try withServer(Self.smallBodies, streaming: { $0.path == "/import" ? 10_000 : nil }, handler: handler) { server in
            let client = try TestClient(port: server.port)
            try client.send("POST /import HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 10001\r\n\r\n")
            let response = try client.readResponse(interim: true)
            #expect(response.status == 413 && response.text == "the handler's own words", "\(response.status) \(response.text)")
            #expect(response.headers["Connection"] == "close")
            try? client.send(String(repeating: "b", count: 10001))
            #expect(try client.isClosedByServer())
        }
    }

    @Test func continueIsSentBeforeTheBodyAndBeforeAnyAnswer() throws {
        let handler: HTTPHandler = { request in
            request.headers["X-Read"] == nil ? HTTPResponse(status: 413, text: "no") : StreamedBodyServerTests.summing(request)
        }
        try withServer(Self.smallBodies, streaming: Self.imports, handler: handler) { server in
            let client = try TestClient(port: server.port)
            try client.send("POST /import HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nX-Read: 1\r\nContent-Length: 3\r\n\r\n")
            #expect(try client.readResponse(interim: true).status == 100)
            try client.send("xyz")
            #expect(try client.readResponse().text.hasPrefix("3 "))
            // A handler that refuses at once: 100 first all the same, then the refusal, then the close.
            let refused = try TestClient(port: server.port)
            try refused.send("POST /import HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3000\r\n\r\n")
            #expect(try refused.readResponse(interim: true).status == 100)
            let answer = try refused.readResponse()
            #expect(answer.status == 413 && answer.headers["Connection"] == "close")
        }
    }

    @Test func uploadsBeyondTheLimitAtOnceAreTurnedAwayWith503() throws {
        var configuration = Self.smallBodies
        configuration.maxStreamedRequests = 1
        let (started, release) = (TestSemaphore(), TestSemaphore())
        let handler: HTTPHandler = { request in
            started.signal()
            release.wait(seconds: 5)
            return StreamedBodyServerTests.summing(request)
        }
        try withServer(configuration, streaming: Self.imports, handler: handler) { server in
            let first = try TestClient(port: server.port)
            try first.send("POST /import HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc")
            #expect(started.wait(seconds: 120), "the first import never started")  // it holds the only slot
            let second = try TestClient(port: server.port)
            try second.send("POST /import HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc")
            let refused = try second.readResponse()
            #expect(refused.status == 503 && refused.headers["Retry-After"] != nil && refused.headers["Connection"] == "close")
            release.signal()
            #expect(try first.readResponse().text.hasPrefix("3 "))
            // The slot is free again.
            let third = try TestClient(port: server.port)
            try third.send("POST /import HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc")
            release.signal()
            #expect(try third.readResponse().status == 200)
        }
    }
}

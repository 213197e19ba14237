import Testing
@testable import HeraldHTTP

/// The connection logic with a mock clock (nanoseconds passed in) and no socket.
@Suite struct ConnectionStateMachineTests {
    static let timeouts = ConnectionStateMachine.Timeouts(header: 1_000, body: 5_000, idle: 60_000, write: 5_000)

    var machine = ConnectionStateMachine(limits: HTTPParserLimits(maxBodyBytes: 100), timeouts: timeouts, now: 0)
    let buffer = ReadBuffer(capacity: 16)

    mutating func deliver(_ text: String, at now: UInt64) -> ConnectionStateMachine.Action {
        buffer.append(Array(text.utf8))
        return machine.bytesAvailable(buffer.bytes, now: now)
    }

    @Test mutating func requestInPiecesIsDispatchedOnceThenAnswered() {
        guard case .wait = deliver("GET /a HTTP/1.1\r\nHo", at: 10) else { Issue.record("expected wait"); return }
        guard case .dispatch(let request, let consumed) = deliver("st: x\r\n\r\n", at: 20) else { Issue.record("expected dispatch"); return }
        #expect(request.path == "/a" && consumed == buffer.count)
        buffer.consume(consumed)
        #expect(!machine.wantsToRead, "no parsing while the handler runs")
        #expect(machine.deadline == .max, "a running handler is not timed out")
        guard case .send(let response, false, false, false) = machine.responseReady(HTTPResponse(status: 200)) else {
            Issue.record("expected send"); return
        }
        #expect(response.status == 200)
        guard case .wait = machine.writeFinished(now: 30) else { Issue.record("expected wait"); return }
        #expect(machine.wantsToRead && machine.deadline == 30 + Self.timeouts.idle)
    }

    @Test mutating func headerTimeoutRunsFromTheFirstByteAndAnswers408() {
        _ = deliver("GET / HTTP/1.1\r\n", at: 100)
        _ = deliver("Host: x\r\n", at: 900)
        guard case .wait = machine.timeoutCheck(now: 1_099) else { Issue.record("too early"); return }
        guard case .send(let response, _, true, _) = machine.timeoutCheck(now: 1_100) else { Issue.record("expected 408"); return }
        #expect(response.status == 408 && machine.lingerOnClose)
    }

    @Test mutating func bodyTimeoutReplacesTheHeaderTimeout() {
        _ = deliver("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab", at: 100)
        guard case .wait = machine.timeoutCheck(now: 1_100) else { Issue.record("the header timeout no longer applies"); return }
        guard case .send(let response, _, true, _) = machine.timeoutCheck(now: 5_100) else { Issue.record("expected 408"); return }
        #expect(response.status == 408)
    }

    @Test mutating func idleConnectionClosesSilently() {
        guard case .wait = machine.timeoutCheck(now: 59_999) else { Issue.record("too early"); return }
        guard case .close = machine.timeoutCheck(now: 60_000) else { Issue.record("expected close"); return }
    }

    @Test mutating func pipelinedRequestWaitsForThePreviousResponse() {
        guard case .dispatch(_, let consumed) = deliver("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n", at: 0) else {
            Issue.record("expected dispatch"); return
        }
        buffer.consume(consumed)
        guard case .wait = machine.bytesAvailable(buffer.bytes, now: 1) else { Issue.record("second must wait"); return }
        _ = machine.responseReady(HTTPResponse(status: 200))
        _ = machine.writeFinished(now: 2)
        guard case .dispatch(let second, _) = machine.bytesAvailable(buffer.bytes, now: 2) else { Issue.record("expected /2"); return }
        #expect(second.path == "/2")
    }

    @Test mutating func connectionCloseRequestClosesAfterTheResponse() {
        _ = deliver("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", at: 0)
        guard case .send(_, _, true, _) = machine.responseReady(HTTPResponse(status: 200)) else { Issue.record("expected close"); return }
        guard case .close = machine.writeFinished(now: 1) else { Issue.record("expected close"); return }
        #expect(!machine.lingerOnClose)
    }

    @Test mutating func handlerMayAskToClose() {
        _ = deliver("GET / HTTP/1.1\r\nHost: x\r\n\r\n", at: 0)
        guard case .send(_, _, true, _) = machine.responseReady(HTTPResponse(status: 200, headers: ["Connection": "Close"])) else {
            Issue.record("expected close"); return
        }
    }

    @Test mutating func http10KeepAliveIsConfirmed() {
        _ = deliver("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", at: 0)
        guard case .send(_, _, false, true) = machine.responseReady(HTTPResponse(status: 200)) else {
            Issue.record("expected a kept-alive HTTP/1.0 response"); return
        }
    }

    @Test mutating func malformedRequestIsAnsweredAndClosed() {
        guard case .send(let response, _, true, _) = deliver("GET / HTTP/1.1\r\nHost : x\r\n\r\n", at: 0) else {
            Issue.record("expected 400"); return
        }
        #expect(response.status == 400 && machine.lingerOnClose)
        guard case .close = machine.writeFinished(now: 1) else { Issue.record("expected close"); return }
    }

    @Test mutating func shutdownClosesIdleConnectionsAndFinishesBusyOnes() {
        var idle = machine
        guard case .close = idle.beginShutdown(bufferEmpty: true) else { Issue.record("idle closes"); return }
        _ = deliver("GET / HTTP/1.1\r\nHost: x\r\n\r\n", at: 0)
        guard case .wait = machine.beginShutdown(bufferEmpty: true) else { Issue.record("busy waits"); return }
        guard case .send(_, _, true, _) = machine.responseReady(HTTPResponse(status: 200)) else { Issue.record("closes after"); return }
    }

    @Test mutating func peerClosingDuringAHandlerStillGetsTheResponse() {
        _ = deliver("GET / HTTP/1.1\r\nHost: x\r\n\r\n", at: 0)
        guard case .wait = machine.peerClosed() else { Issue.record("expected wait"); return }
        guard case .send = machine.responseReady(HTTPResponse(status: 200)) else { Issue.record("expected send"); return }
    }

    @Test mutating func expectContinueIsSentOnce() {
        guard case .sendContinue = deliver("PUT / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n", at: 0) else {
            Issue.record("expected 100 Continue"); return
        }
        guard case .wait = deliver("ab", at: 1) else { Issue.record("only once"); return }
        guard case .dispatch(let request, _) = deliver("cd", at: 2) else { Issue.record("expected dispatch"); return }
        #expect(request.body == Array("abcd".utf8))
    }

    @Test mutating func aResponseTheHandlerWroteItselfFinishesLikeASentOne() throws {
        guard case .dispatch(_, let consumed) = deliver("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n", at: 0) else {
            Issue.record("expected dispatch"); return
        }
        buffer.consume(consumed)
        let terms = try #require(machine.responseTerms)
        #expect(terms == ConnectionStateMachine.ResponseTerms(headRequest: false, keepAlive: true, http10: false))
        #expect(terms.framing(of: HTTPResponse(status: 200), shuttingDown: false) == (close: false, confirmKeepAlive: false))
        #expect(terms.framing(of: HTTPResponse(status: 200), shuttingDown: true) == (close: true, confirmKeepAlive: false))
        machine.responseSerialized(close: false)
        #expect(machine.isWriting && !machine.wantsToRead, "the pipelined request waits until the write is finished")
        guard case .wait = machine.writeFinished(now: 5) else { Issue.record("expected wait"); return }
        guard case .dispatch(let next, _) = machine.bytesAvailable(buffer.bytes, now: 6) else { Issue.record("expected the next"); return }
        #expect(next.path == "/b")
        machine.responseSerialized(close: true)
        guard case .close = machine.writeFinished(now: 7) else { Issue.record("expected close"); return }
    }

    @Test mutating func http10TermsConfirmKeepAliveUnlessClosing() throws {
        _ = deliver("HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", at: 0)
        let terms = try #require(machine.responseTerms)
        #expect(terms.headRequest)
        #expect(terms.framing(of: HTTPResponse(status: 200), shuttingDown: false) == (close: false, confirmKeepAlive: true))
        #expect(terms.framing(of: HTTPResponse(status: 200, headers: ["Connection": "close"]), shuttingDown: false)
                == (close: true, confirmKeepAlive: false))
    }

    @Test func readBufferIsReusedAcrossRequests() {
        let buffer = ReadBuffer(capacity: 64)
        for _ in 0..<10 {
            buffer.append(Array(repeating: 1, count: 40))
            buffer.consume(40)
        }
        #expect(buffer.capacity == 64 && buffer.isEmpty)
        buffer.append(Array(repeating: 2, count: 100))
        buffer.consume(30)
        #expect(buffer.count == 70 && buffer.bytes.allSatisfy { $0 == 2 })
    }
}

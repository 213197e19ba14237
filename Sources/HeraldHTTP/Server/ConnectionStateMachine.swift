/// The life of one connection as a pure state machine: it is told what happened (bytes arrived,
/// a response is ready, a write finished, time passed, shutdown began) and answers what to do.
/// It does no I/O and reads no clock, so it is tested without sockets; `Connection` performs
/// the actions.
struct ConnectionStateMachine {
    /// What the I/O layer must do next.
    enum Action {
        /// Nothing now; wait for more bytes or a response.
        case wait
        /// Run the handler for this request; `consumed` bytes of the buffer belong to it.
        case dispatch(HTTPRequest, consumed: Int)
        /// Run the handler for this request, whose body follows as `bodyPart`s while it runs;
        /// `sendContinue`: write `100 Continue` first. `refused`: the body is over the route's
        /// limit already, so the handler's first read fails with it and its answer closes.
        case dispatchStreamed(HTTPRequest, consumed: Int, sendContinue: Bool, refused: RequestBodyError?)
        /// Hand this part of the streamed body to its handler; `consumed` bytes of the buffer
        /// carried it. `last`: the body is complete.
        case bodyPart([UInt8], consumed: Int, last: Bool)
        /// The streamed body cannot be completed: the handler's next read fails with this error,
        /// and its answer closes the connection.
        case bodyFailed(RequestBodyError)
        /// Send this response, then call `writeFinished` (or close, if `close`). `confirmKeepAlive`:
        /// an HTTP/1.0 client must be told `Connection: keep-alive`.
        case send(HTTPResponse, headRequest: Bool, close: Bool, confirmKeepAlive: Bool)
        /// Send `100 Continue` and keep reading.
        case sendContinue
        /// Close the connection now, sending nothing.
        case close
    }

    /// What the request in flight decides about its response's framing: all a handler thread needs
    /// to write the response itself, and the one place the decision is made.
    struct ResponseTerms: Equatable, Sendable {
        var headRequest: Bool
        var keepAlive: Bool
        var http10: Bool

        /// Whether the connection closes after `response`, and whether an HTTP/1.0 client must be
        /// told `Connection: keep-alive`. A handler may ask to close with `Connection: close`.
        /// `bodyUnfinished`: a streamed body has not arrived whole, so nothing after it can be read.
        func framing(of response: HTTPResponse, shuttingDown: Bool, bodyUnfinished: Bool = false) -> (close: Bool, confirmKeepAlive: Bool) {
            let close = !keepAlive || shuttingDown || bodyUnfinished || ConnectionStateMachine.asksToClose(response)
            return (close, http10 && !close)
        }
    }

    enum Phase: Equatable {
        /// Reading a request (or idle between requests, when the buffer is empty).
        case reading
        /// A request is with the handler; no further bytes are parsed until its response is sent.
        case awaitingResponse(ResponseTerms)
        /// A response is being written.
        case writing(close: Bool)
        case closed
    }

    /// Timeouts in nanoseconds.
    struct Timeouts {
        var header: UInt64
        var body: UInt64
        var idle: UInt64
        /// How long a client may take to read a response before it is dropped.
        var write: UInt64
    }

    private enum DeadlineKind { case idle, header, body, write, none }

    /// A body streamed to a handler that is already running.
    enum StreamedBody: Equatable {
        case none
        /// Parts are still arriving.
        case receiving
        /// It stopped before its end; the handler's answer will close the connection.
        case failed
    }

    private(set) var phase = Phase.reading
    private var parser: HTTPRequestParser
    private let timeouts: Timeouts
    private(set) var deadline: UInt64
    private var deadlineKind = DeadlineKind.idle
    private var continueSent = false
    private(set) var shuttingDown = false
    /// The connection closes with part of a request unread (an error or a timeout): the I/O layer
    /// should read and discard input for a moment before closing, or the kernel would answer the
    /// unread bytes with a reset that can destroy the response before the client reads it.
    private(set) var lingerOnClose = false
    private(set) var streamedBody = StreamedBody.none
    /// The handler has not taken enough of the streamed body: reading waits (and so does its timeout).
    private(set) var bodyPaused = false

    init(limits: HTTPParserLimits, streaming: BodyStreamingRule? = nil, timeouts: Timeouts, now: UInt64) {
        parser = HTTPRequestParser(limits: limits, streaming: streaming)
        self.timeouts = timeouts
        deadline = now + timeouts.idle
    }

    /// Whether the I/O layer should read from the socket now.
    var wantsToRead: Bool { phase == .reading || (streamedBody == .receiving && !bodyPaused) }

    /// New bytes are in `buffer` (or a response was just sent and the buffer may hold the next
    /// pipelined request). Parses when a request may be read.
    mutating func bytesAvailable(_ buffer: UnsafeBufferPointer<UInt8>, now: UInt64) -> Action {
        if streamedBody == .receiving { return streamBody(buffer, now: now) }
        guard phase == .reading else { return .wait }
        switch parser.parse(buffer) {
        case .needMore:
            if buffer.isEmpty {
                if shuttingDown { phase = .closed; return .close }
                return .wait
            }
            if parser.isReceivingBody {
                if deadlineKind != .body { setDeadline(.body, now + timeouts.body) }
                if parser.expectsContinue && !continueSent {
                    continueSent = true
                    return .sendContinue
                }
            } else if deadlineKind != .header {
                // The header timeout runs from the first byte of a request.
                setDeadline(.header, now + timeouts.header)
            }
            return .wait
        case .request(let request, let consumed):
            phase = .awaitingResponse(ResponseTerms(headRequest: request.method == .head, keepAlive: request.keepAlive,
                                                    http10: request.isHTTP10))
            setDeadline(.none, .max)
            continueSent = false
            return .dispatch(request, consumed: consumed)
        case .head(let request, let consumed, let expectsContinue):
            phase = .awaitingResponse(ResponseTerms(headRequest: request.method == .head, keepAlive: request.keepAlive,
                                                    http10: request.isHTTP10))
            continueSent = false
            if parser.refusesBody {
                // Nothing of the body is read; the handler answers, and the connection closes.
                streamedBody = .failed
                lingerOnClose = true
                setDeadline(.none, .max)
                return .dispatchStreamed(request, consumed: consumed, sendContinue: false, refused: .parse(.bodyTooLarge))
            }
            streamedBody = .receiving
            setDeadline(.body, now + timeouts.body)
            return .dispatchStreamed(request, consumed: consumed, sendContinue: expectsContinue, refused: nil)
        case .bodyPart:
            return .wait  // only while a body streams, handled above
        case .error(let error):
            lingerOnClose = true
            return respond(HTTPResponse.problem(status: error.status, detail: error.description), headRequest: false, close: true)
        }
    }

    /// The next part of a streamed body. The body timeout runs from the last part received, so
    /// a large upload may take as long as it keeps arriving.
    private mutating func streamBody(_ buffer: UnsafeBufferPointer<UInt8>, now: UInt64) -> Action {
        guard !bodyPaused else { return .wait }
        switch parser.parse(buffer) {
        case .needMore, .request, .head:
            return .wait
        case .bodyPart(let part, let consumed, let last):
            if last {
                streamedBody = .none
                setDeadline(.none, .max)
            } else if consumed > 0 {
                setDeadline(.body, now + timeouts.body)
            }
            return .bodyPart(part, consumed: consumed, last: last)
        case .error(let error):
            return failBody(.parse(error))
        }
    }

    private mutating func failBody(_ error: RequestBodyError) -> Action {
        streamedBody = .failed
        lingerOnClose = true
        setDeadline(.none, .max)
        return .bodyFailed(error)
    }

    /// The handler has taken too little of the streamed body: stop reading, and stop its clock.
    mutating func pauseBody() {
        bodyPaused = true
        if deadlineKind == .body { setDeadline(.none, .max) }
    }

    /// The handler has caught up: read again.
    mutating func resumeBody(now: UInt64) {
        guard bodyPaused else { return }
        bodyPaused = false
        if streamedBody == .receiving { setDeadline(.body, now + timeouts.body) }
    }

    /// A response while a streamed body is unfinished ends the connection: the rest of the body
    /// would otherwise be read as the next request.
    private mutating func endStreamedBody() -> Bool {
        guard streamedBody != .none else { return false }
        streamedBody = .none
        lingerOnClose = true
        return true
    }

    /// The handler's response (or the server's own 503) for the request in flight.
    mutating func responseReady(_ response: HTTPResponse) -> Action {
        guard case .awaitingResponse(let terms) = phase else { return .wait }
        let unfinished = endStreamedBody()
        let (close, confirmKeepAlive) = terms.framing(of: response, shuttingDown: shuttingDown, bodyUnfinished: unfinished)
        return respond(response, headRequest: terms.headRequest, close: close, confirmKeepAlive: confirmKeepAlive)
    }

    /// The terms of the request in flight, while its response is awaited.
    var responseTerms: ResponseTerms? {
        guard case .awaitingResponse(let terms) = phase else { return nil }
        return terms
    }

    /// The handler serialized the response itself (and wrote some or all of it): what is left, if
    /// anything, is the I/O layer's to write, then `writeFinished` follows as after a `send`.
    mutating func responseSerialized(close: Bool) {
        guard case .awaitingResponse = phase else { return }
        phase = .writing(close: endStreamedBody() || close)
        setDeadline(.none, .max)
    }

    /// A response is being written (or has been, and `writeFinished` is due).
    var isWriting: Bool {
        if case .writing = phase { return true }
        return false
    }

    /// A response could not be written at once; the client has `write` time to read it.
    mutating func writeBlocked(now: UInt64) {
        if deadlineKind != .write { setDeadline(.write, now + timeouts.write) }
    }

    /// The response is fully written. Afterwards call `bytesAvailable` with the buffer: it may hold
    /// the next pipelined request.
    mutating func writeFinished(now: UInt64) -> Action {
        guard case .writing(let close) = phase else { return .wait }
        if close {
            phase = .closed
            return .close
        }
        phase = .reading
        setDeadline(.idle, now + timeouts.idle)
        return .wait
    }

    /// The peer closed its side (read returned 0). A request already in flight is still answered.
    mutating func peerClosed() -> Action {
        if streamedBody == .receiving { return failBody(.connectionClosed) }
        guard phase == .reading else { return .wait }
        phase = .closed
        return .close
    }

    /// Checks the deadline. A slow request gets 408 and a close; an idle connection or a client
    /// not reading its response is closed silently.
    mutating func timeoutCheck(now: UInt64) -> Action {
        guard now >= deadline else { return .wait }
        switch deadlineKind {
        case .header, .body:
            // The handler holds a streamed request: it answers, so nothing is written from here.
            if streamedBody == .receiving {
                return failBody(RequestBodyError(.timeout, detail: "The request body did not arrive in time."))
            }
            lingerOnClose = true
            return respond(HTTPResponse.problem(status: 408, detail: "The request did not arrive in time."), headRequest: false, close: true)
        case .idle, .write:
            phase = .closed
            return .close
        case .none:
            return .wait
        }
    }

    /// Graceful shutdown began: an idle connection closes now; a request being received or
    /// handled is finished and answered with `Connection: close`.
    mutating func beginShutdown(bufferEmpty: Bool) -> Action {
        shuttingDown = true
        if phase == .reading && bufferEmpty {
            phase = .closed
            return .close
        }
        return .wait
    }

    private mutating func respond(_ response: HTTPResponse, headRequest: Bool, close: Bool, confirmKeepAlive: Bool = false) -> Action {
        phase = .writing(close: close)
        setDeadline(.none, .max)
        return .send(response, headRequest: headRequest, close: close, confirmKeepAlive: confirmKeepAlive)
    }

    static func asksToClose(_ response: HTTPResponse) -> Bool {
        guard let value = response.headers["Connection"] else { return false }
        return value.split(separator: ",").contains { option in
            HTTPHeaders.sameName(String(option.filter { $0 != " " && $0 != "\t" }), "close")
        }
    }

    private mutating func setDeadline(_ kind: DeadlineKind, _ instant: UInt64) {
        deadlineKind = kind
        deadline = instant
    }
}

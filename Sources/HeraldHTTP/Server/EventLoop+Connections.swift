import CLinux
import Synchronization
import Glibc

/// The I/O side of a connection: performs what its state machine decides, iteratively, so a
/// buffer full of pipelined requests never deepens the stack.
extension EventLoop {
    func handle(_ events: UInt32, on connection: Connection) {
        if events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
            closeConnection(connection)
            return
        }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 {
            connection.mayHaveInput = true
            // Input while a handler has the request: if the handler already queued its completion
            // quietly, take it now (it drives the connection on to this input); if not, the flag
            // tells the handler to wake the loop when it does.
            if connection.withHandler, connection.gate.state.withLock({ state in
                state.inputWhileHandled = true
                return state.quietlyCompleted
            }) {
                drainInbox(readingWakeFD: false)
            }
        }
        if events & EPOLLRDHUP.rawValue != 0 { connection.peerFinished = true }
        if connection.drainingUntil != nil {
            drain(connection)
        } else {
            drive(connection)
        }
    }

    /// Moves a connection forward — write what is pending, parse what is buffered, read what
    /// the socket holds — until it must wait for the socket, a handler or the clock.
    func drive(_ connection: Connection) {
        while connections[connection.fd] === connection {
            if connection.hasPendingWrite || connection.machine.isWriting {
                guard writePending(connection) else { return }
                if connection.interimPending {
                    connection.interimPending = false
                    connection.gate.state.withLock { $0.loopWriting = false }
                }
                if case .close = connection.machine.writeFinished(now: monotonicNanoseconds()) {
                    closeAfterFinalResponse(connection)
                    return
                }
                connection.readBuffer.shrinkIfEmpty()
                continue
            }
            guard connection.machine.wantsToRead else { return }
            let action = connection.machine.bytesAvailable(connection.readBuffer.bytes, now: monotonicNanoseconds())
            if case .wait = action {
                guard connection.mayHaveInput, receive(connection) else { return }
            } else {
                apply(action, to: connection)
            }
        }
    }

    /// How much one read of a streamed body asks for.
    static let streamedReadBytes = 64 * 1024

    /// Carries out one decision of the state machine; sends are only queued (`drive` writes them).
    /// The action is consumed: a request or response moves through without being copied.
    func apply(_ action: consuming ConnectionStateMachine.Action, to connection: Connection) {
        switch consume action {
        case .wait:
            return
        case .dispatch(var request, let consumed):
            connection.readBuffer.consume(consumed)
            request.remoteAddress = connection.remoteAddress
            var pool = settings.pool
            if let dispatch = settings.dispatch {
                switch dispatch(&request) {
                case .answered(let answer):
                    apply(connection.machine.responseReady(answer), to: connection)
                    return
                case .quickHandler: pool = settings.quickPool ?? settings.pool
                case .handler: break
                }
            } else if let answer = settings.loopHandler?(request) {
                apply(connection.machine.responseReady(answer), to: connection)
                return
            }
            submit(request, from: connection, to: pool, streamSlot: false)
        case .dispatchStreamed(var request, let consumed, let sendContinue, let refused):
            connection.readBuffer.consume(consumed)
            request.remoteAddress = connection.remoteAddress
            guard settings.streamSlots.acquire() else {
                let busy = HTTPResponse.problem(status: 503, detail: "Too many uploads at once; retry in a few seconds.", headers: ["Retry-After": "5"])
                apply(connection.machine.responseReady(busy), to: connection)
                return
            }
            let (id, fd) = (connection.id, connection.fd)
            let stream = RequestBodyStream { [self] in complete(id: id, fd: fd, .resumeBody) }
            request.bodyStream = stream
            if let refused {
                stream.fail(refused)
            } else {
                connection.bodyStream = stream
            }
            if sendContinue {
                // Queued before the handler can run, so its response cannot overtake it.
                connection.gate.state.withLock { $0.loopWriting = true }
                connection.interimPending = true
                connection.writeBuffer.append(contentsOf: ResponseSerializer.continueResponse)
            }
            // An upload may take minutes: never on the quick handlers.
            submit(request, from: connection, to: settings.pool, streamSlot: true)
        case .bodyPart(let part, let consumed, let last):
            connection.readBuffer.consume(consumed)
            guard let stream = connection.bodyStream else { return }
            if stream.push(part, last: last) { connection.machine.pauseBody() }
            if last { connection.bodyStream = nil }
        case .bodyFailed(let error):
            connection.bodyStream?.fail(error)
            connection.bodyStream = nil
        case .send(let response, let headRequest, let close, let confirmKeepAlive):
            ResponseSerializer.write(response, headRequest: headRequest, close: close, confirmKeepAlive: confirmKeepAlive,
                                     date: dateCache.current(), into: &connection.writeBuffer)
        case .sendContinue:
            connection.writeBuffer.append(contentsOf: ResponseSerializer.continueResponse)
        case .close:
            closeConnection(connection)
        }
    }

    /// Queues the request for a handler thread, or answers 503 when the queue is full. A streamed
    /// request gives its slot back when its handler is done.
    private func submit(_ request: HTTPRequest, from connection: Connection, to pool: HandlerPool, streamSlot: Bool) {
        let handler = settings.handler
        let (id, fd, gate, slots) = (connection.id, connection.fd, connection.gate, settings.streamSlots)
        guard let terms = connection.machine.responseTerms else {
            if streamSlot { slots.release() }
            return
        }
        // Input the loop already holds (a pipelined request, the peer's FIN, a read that filled the
        // buffer) brings no new event: the handler must wake the loop to get on with it.
        if !connection.readBuffer.isEmpty || connection.peerFinished || connection.mayHaveInput {
            gate.state.withLock { $0.inputWhileHandled = true }
        }
        let accepted = pool.submit { [self] scratch in
            let response = handler(request)
            // Free before the answer goes out, so the client's next upload finds the slot free.
            if streamSlot { slots.release() }
            if let completion = deliver(response, terms: terms, bodyStream: request.bodyStream, id: id, fd: fd, gate: gate, scratch: &scratch) {
                complete(id: id, fd: fd, completion)
            }
        }
        if accepted {
            connection.withHandler = true
        } else {
            if streamSlot { slots.release() }
            // The handler queue is full: refuse now rather than queue without bound.
            let busy = HTTPResponse.problem(status: 503, detail: "The server is busy; retry in a second.", headers: ["Retry-After": "1"])
            apply(connection.machine.responseReady(busy), to: connection)
        }
    }

    /// On a handler thread: writes the response to the socket at once when the connection is still
    /// this one and open, so the client need not wait for the loop to wake up and write it; the
    /// loop gets only what the socket did not take. Nothing else is written to the socket while
    /// a request is with its handler (a response is complete before the next request is parsed),
    /// so pipelined responses stay in order. Nil when the whole response went out and the
    /// completion is already queued, quietly unless the loop has seen the next request arrive.
    func deliver(_ response: HTTPResponse, terms: ConnectionStateMachine.ResponseTerms, bodyStream: RequestBodyStream?, id: UInt64,
                 fd: Int32, gate: ResponseGate, scratch: inout HandlerPool.Scratch) -> Completion? {
        let bodyUnfinished = bodyStream.map { !$0.isFinished } ?? false
        let (close, confirmKeepAlive) = terms.framing(of: response, shuttingDown: false, bodyUnfinished: bodyUnfinished)
        scratch.output.removeAll(keepingCapacity: true)
        ResponseSerializer.write(response, headRequest: terms.headRequest, close: close, confirmKeepAlive: confirmKeepAlive,
                                 date: scratch.date.current(), into: &scratch.output)
        // A large body should not pin its memory to the thread once sent.
        defer { if scratch.output.capacity > Self.scratchCapacityKept { scratch.output = [] } }
        enum Attempt { case sent(Int), queued, notMine, failed }
        let attempt = scratch.output.withUnsafeBytes { bytes in
            gate.state.withLock { state -> Attempt in
                // Shutting down: the loop adds `Connection: close`, which this response lacks.
                guard !state.closed, !state.shuttingDown, !shutdownAsked.load(ordering: .acquiring), !state.loopWriting else { return .notMine }
                let sent: Int
                do {
                    // The socket is non-blocking: a full socket takes nothing now (EAGAIN, nil).
                    sent = try systemCall("send") { send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) } ?? 0
                } catch {
                    return .failed  // EPIPE, ECONNRESET: the client is gone
                }
                guard sent == bytes.count, !close, bodyStream == nil else { return .sent(sent) }
                // Queued under the gate's lock, so the loop either sees `quietlyCompleted` when the
                // next request arrives or has set `inputWhileHandled` before this looks.
                state.quietlyCompleted = true
                complete(id: id, fd: fd, .written(close: false, remaining: []), wake: state.inputWhileHandled)
                return .queued
            }
        }
        switch attempt {
        case .failed: return .failed
        case .notMine: return .response(response)
        case .queued: return nil
        case .sent(let count): return .written(close: close, remaining: Array(scratch.output[count...]))
        }
    }

    /// Reads once into the buffer. False when nothing was read (the socket is empty, closed or failed).
    private func receive(_ connection: Connection) -> Bool {
        // A streamed body is read in larger pieces: fewer parts for its handler to take.
        let space = connection.readBuffer.freeSpace(minimum: connection.machine.streamedBody == .receiving ? Self.streamedReadBytes : 4096)
        let received: Int?
        do {
            received = try systemCall("read") { read(connection.fd, space.baseAddress, space.count) }
        } catch {
            closeConnection(connection)  // ECONNRESET and the like: nothing to answer
            return false
        }
        guard let received else {
            connection.mayHaveInput = false
            return false
        }
        if received == 0 {
            apply(connection.machine.peerClosed(), to: connection)
            return false
        }
        connection.readBuffer.didAppend(received)
        // A short read emptied the socket; edge-triggered epoll will report the next arrival.
        if received < space.count && !connection.peerFinished { connection.mayHaveInput = false }
        return true
    }

    /// Writes pending bytes. True when all are written; false when the socket is full (EPOLLOUT
    /// will resume) or the connection was closed.
    private func writePending(_ connection: Connection) -> Bool {
        while connection.hasPendingWrite {
            let sent: Int?
            do {
                sent = try connection.writeBuffer.withUnsafeBytes { bytes throws(SystemCallError) in
                    try systemCall("send") {
                        send(connection.fd, bytes.baseAddress! + connection.writeOffset, bytes.count - connection.writeOffset,
                             Int32(MSG_NOSIGNAL))
                    }
                }
            } catch {
                closeConnection(connection)  // EPIPE, ECONNRESET: the client is gone
                return false
            }
            guard let sent else {
                connection.machine.writeBlocked(now: monotonicNanoseconds())
                return false
            }
            connection.writeOffset += sent
        }
        connection.writeBuffer.removeAll(keepingCapacity: true)
        connection.writeOffset = 0
        return true
    }

    /// Closes after the last response. When part of a request may be unread, half-closes and
    /// discards input for a moment first: closing with unread bytes makes the kernel send a reset,
    /// which can destroy the response before the client reads it.
    private func closeAfterFinalResponse(_ connection: Connection) {
        guard connection.machine.lingerOnClose || !connection.readBuffer.isEmpty else {
            closeConnection(connection)
            return
        }
        shutdown(connection.fd, Int32(SHUT_WR))
        connection.drainingUntil = monotonicNanoseconds() + Self.lingerNanoseconds
        connection.mayHaveInput = true
        drain(connection)
    }

    /// Reads and discards until the socket is empty; closes at end of stream or on error.
    func drain(_ connection: Connection) {
        while connections[connection.fd] === connection {
            let space = connection.readBuffer.freeSpace(minimum: 4096)
            let received: Int?
            do {
                received = try systemCall("read") { read(connection.fd, space.baseAddress, space.count) }
            } catch {
                closeConnection(connection)
                return
            }
            guard let received else { return }  // nothing more for now; the buffer is never advanced
            if received == 0 {
                closeConnection(connection)  // the peer read the response and closed
                return
            }
        }
    }

    func closeConnection(_ connection: Connection) {
        guard connections[connection.fd] === connection else { return }
        connections[connection.fd] = nil
        connection.bodyStream?.fail(.connectionClosed)
        connection.bodyStream = nil
        // A handler may be writing to this descriptor; once marked it never will again.
        connection.gate.state.withLock { $0.closed = true }
        close(connection.fd)
    }
}

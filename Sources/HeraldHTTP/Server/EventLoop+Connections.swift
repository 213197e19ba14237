import CLinux
import Glibc

/// The I/O side of a connection: performs what its state machine decides.
extension EventLoop {
    func handle(_ events: UInt32, on connection: Connection) {
        if events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
            closeConnection(connection)
            return
        }
        if events & EPOLLOUT.rawValue != 0 && connection.hasPendingWrite {
            flush(connection)
            if connections[connection.fd] !== connection { return }
        }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 {
            connection.mayHaveInput = true
            if connection.drainingUntil != nil {
                drain(connection)
            } else {
                readAndParse(connection)
            }
        }
    }

    /// Reads while the state machine wants input and the socket may have some.
    func readAndParse(_ connection: Connection) {
        while connection.machine.wantsToRead && connection.mayHaveInput && connections[connection.fd] === connection {
            let space = connection.readBuffer.freeSpace(minimum: 4096)
            let received: Int?
            do {
                received = try systemCall("read") { read(connection.fd, space.baseAddress, space.count) }
            } catch {
                closeConnection(connection)  // ECONNRESET and the like: nothing to answer
                return
            }
            guard let received else {
                connection.mayHaveInput = false
                return
            }
            if received == 0 {
                perform(connection.machine.peerClosed(), on: connection)
                return
            }
            connection.readBuffer.didAppend(received)
            // A short read emptied the socket; the next edge will say when more arrives.
            if received < space.count { connection.mayHaveInput = false }
            parseBuffered(connection)
        }
    }

    /// Parses what the buffer holds and performs the outcome.
    func parseBuffered(_ connection: Connection) {
        let action = connection.machine.bytesAvailable(connection.readBuffer.bytes, now: monotonicNanoseconds())
        perform(action, on: connection)
    }

    func perform(_ action: ConnectionStateMachine.Action, on connection: Connection) {
        switch action {
        case .wait:
            return
        case .dispatch(var request, let consumed):
            connection.readBuffer.consume(consumed)
            request.remoteAddress = connection.remoteAddress
            let handler = settings.handler
            let (id, fd) = (connection.id, connection.fd)
            let request = request
            let accepted = settings.pool.submit { [self] in
                complete(id: id, fd: fd, response: handler(request))
            }
            if !accepted {
                // The handler queue is full: refuse now rather than queue without bound.
                let busy = HTTPResponse(status: 503, headers: ["Retry-After": "1", "Content-Type": "text/plain; charset=utf-8"],
                                        body: Array("server busy, retry shortly\n".utf8))
                perform(connection.machine.responseReady(busy), on: connection)
            }
        case .send(let response, let headRequest, let close):
            ResponseSerializer.write(response, headRequest: headRequest, close: close, date: dateCache.current(),
                                     into: &connection.writeBuffer)
            flush(connection)
        case .sendContinue:
            connection.writeBuffer.append(contentsOf: ResponseSerializer.continueResponse)
            flush(connection)
        case .close:
            closeConnection(connection)
        }
    }

    /// Writes pending bytes; when a response is fully written, moves the connection on.
    func flush(_ connection: Connection) {
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
                return
            }
            guard let sent else {
                connection.machine.writeBlocked(now: monotonicNanoseconds())
                return  // EPOLLOUT resumes
            }
            connection.writeOffset += sent
        }
        connection.writeBuffer.removeAll(keepingCapacity: true)
        connection.writeOffset = 0
        switch connection.machine.writeFinished(now: monotonicNanoseconds()) {
        case .close:
            if connection.machine.lingerOnClose || !connection.readBuffer.isEmpty {
                lingerAndClose(connection)
            } else {
                closeConnection(connection)
            }
        default:
            guard connection.machine.wantsToRead else { return }
            connection.readBuffer.shrinkIfEmpty()
            parseBuffered(connection)
            if connections[connection.fd] === connection { readAndParse(connection) }
        }
    }

    /// Half-closes and discards input until the peer closes or a short linger passes.
    func lingerAndClose(_ connection: Connection) {
        shutdown(connection.fd, Int32(SHUT_WR))
        connection.drainingUntil = monotonicNanoseconds() + Self.lingerNanoseconds
        connection.mayHaveInput = true
        drain(connection)
    }

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
                closeConnection(connection)  // the peer read our response and closed
                return
            }
        }
    }

    func closeConnection(_ connection: Connection) {
        guard connections[connection.fd] === connection else { return }
        connections[connection.fd] = nil
        close(connection.fd)
    }
}

import Synchronization

/// What a handler thread and the loop share about one connection, so that a handler may write its
/// response to the socket itself: the loop marks the connection closed under this lock before it
/// closes the descriptor (which a later connection may then reuse), and the handler writes only
/// under the same lock, so it never writes to a descriptor that is not this connection's.
/// `closed` and `shuttingDown` only ever turn on; the lock is held for one non-blocking write at
/// most. The last two flags let a handler that wrote its whole response leave the loop asleep
/// (see `EventLoop.complete`) without stranding the client's next request.
final class ResponseGate: Sendable {
    struct State {
        var closed = false
        /// Graceful shutdown began: responses must say `Connection: close`, which the loop adds.
        var shuttingDown = false
        /// The loop has bytes of its own queued for the socket (`100 Continue` for a streamed
        /// body): the handler's response must go after them, through the loop.
        var loopWriting = false
        /// The loop saw input on the socket while the request was with its handler (reset by the
        /// loop when it takes the handler's completion).
        var inputWhileHandled = false
        /// The handler queued its completion without waking the loop.
        var quietlyCompleted = false
    }

    let state = Mutex(State())
}

/// One accepted socket: its buffers and its state machine. Owned by one event loop thread.
final class Connection {
    let fd: Int32
    /// Distinguishes this connection from a later one that reuses the descriptor number.
    let id: UInt64
    let remoteAddress: String
    let readBuffer = ReadBuffer()
    var machine: ConnectionStateMachine
    let gate = ResponseGate()
    /// The bytes of the response being sent, reused from response to response.
    var writeBuffer: [UInt8] = []
    var writeOffset = 0
    /// Edge-triggered epoll reports new data once: true while the socket may still hold unread bytes.
    var mayHaveInput = true
    /// The peer shut its writing side (EPOLLRDHUP): the end of input waits to be read even after a
    /// short read, so a request sent together with its FIN is answered and the socket closed at
    /// once, not after the idle timeout.
    var peerFinished = false
    /// After a final response, input is read and discarded until the peer closes or this instant
    /// passes, so that unread request bytes do not turn the close into a reset that destroys the
    /// response before the client reads it (a "lingering close").
    var drainingUntil: UInt64?
    /// The streamed body of the request in flight, while parts still go to its handler.
    var bodyStream: RequestBodyStream?
    /// `100 Continue` is queued ahead of a streamed request's response (see `ResponseGate`).
    var interimPending = false
    /// A request of this connection is with a handler thread, until the loop takes its completion.
    var withHandler = false

    init(fd: Int32, id: UInt64, remoteAddress: String, machine: ConnectionStateMachine) {
        self.fd = fd
        self.id = id
        self.remoteAddress = remoteAddress
        self.machine = machine
        writeBuffer.reserveCapacity(4096)
    }

    var hasPendingWrite: Bool { writeOffset < writeBuffer.count }
}

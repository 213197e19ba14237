import CLinux
import Glibc
import Synchronization

/// Settings shared by every loop of one server.
struct LoopSettings: Sendable {
    var limits: HTTPParserLimits
    var timeouts: ConnectionStateMachine.Timeouts
    var gracePeriod: UInt64
    var handler: HTTPHandler
    var loopHandler: LoopHandler?
    var streaming: BodyStreamingRule?
    var streamSlots: StreamSlots
    var pool: HandlerPool
    var dispatch: DispatchRule?
    /// The quick handlers, when the server has a dispatch rule and threads for them.
    var quickPool: HandlerPool?
    var log: @Sendable (String) -> Void
}

/// One epoll event loop on its own thread. It accepts from the shared listening socket, reads,
/// parses, hands requests to the handler pool and writes responses; it never blocks and never
/// runs handlers. Other threads reach it only through `complete` and `requestShutdown`.
final class EventLoop: @unchecked Sendable {
    /// What other threads hand to the loop, guarded by a mutex; the eventfd write that wakes the
    /// loop happens under the same lock, so it can never hit a closed (reused) descriptor.
    /// How a handler finished with a request.
    enum Completion {
        /// The loop must serialize and write this response.
        case response(HTTPResponse)
        /// The handler wrote the response itself; `remaining` is what the socket did not take.
        case written(close: Bool, remaining: [UInt8])
        /// Writing failed (the peer is gone): close.
        case failed
        /// The handler caught up with a streamed body: read the socket again.
        case resumeBody
    }

    private struct Inbox {
        var completions: [(id: UInt64, fd: Int32, completion: Completion)] = []
        var shutdownRequested = false
        var wakePending = false
        var closed = false
    }

    private let inbox = Mutex(Inbox())
    /// Completions wait in the inbox without a wake-up (`complete(…, wake: false)`).
    private let quietCompletions = Atomic<Bool>(false)
    /// Set as soon as shutdown is asked for, before the loop has woken to mark its connections: a
    /// handler that answers from then on leaves its response to the loop, which adds
    /// `Connection: close` (a response written by the handler in between went out without it).
    let shutdownAsked = Atomic<Bool>(false)
    let epollFD: Int32
    let wakeFD: Int32
    let listenFD: Int32
    let settings: LoopSettings
    private let onListenerReleased: @Sendable () -> Void

    // Loop-thread state.
    var connections: [Int32: Connection] = [:]
    private var nextConnectionID: UInt64
    var dateCache = DateCache()
    private var shuttingDown = false
    private var graceDeadline: UInt64 = .max
    private var acceptPausedUntil: UInt64?
    /// How often deadlines are checked. A periodic sweep over the loop's connections (epoll_wait's
    /// timeout is the interval) is simpler than a timer wheel and cheap at the connection counts
    /// of one instance; a timeout fires at most a quarter of the shortest timeout (≤ 250 ms) late.
    private let sweepInterval: UInt64
    /// Connections accepted per wake-up, so one busy loop cannot starve its connections.
    static let acceptBatch = 64
    static let lingerNanoseconds: UInt64 = 2_000_000_000
    /// A handler thread's output buffer is kept for the next response up to this size.
    static let scratchCapacityKept = 64 * 1024

    init(index: Int, listenFD: Int32, settings: LoopSettings, onListenerReleased: @escaping @Sendable () -> Void) throws(SystemCallError) {
        self.listenFD = listenFD
        self.settings = settings
        self.onListenerReleased = onListenerReleased
        nextConnectionID = UInt64(index) << 48
        let shortest = min(settings.timeouts.header, settings.timeouts.body, settings.timeouts.idle)
        sweepInterval = max(5_000_000, min(shortest / 4, 250_000_000))
        epollFD = try blockingSystemCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        do {
            wakeFD = try blockingSystemCall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
        } catch {
            close(epollFD)
            throw error
        }
        do {
            try add(wakeFD, events: EPOLLIN.rawValue)
            // One listening socket for all loops; EPOLLEXCLUSIVE wakes one loop per new connection
            // instead of all of them.
            try add(listenFD, events: EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue)
        } catch {
            close(wakeFD)
            close(epollFD)
            throw error
        }
    }

    // MARK: Called from other threads

    /// A handler finished: queue what the loop must still do for the connection and wake the loop.
    /// Without `wake` the completion waits for the loop's next turn: a handler that wrote its whole
    /// response leaves nothing urgent, and waking the loop (an eventfd write, a context switch and
    /// a read) for every such request was a large part of a database read's system time. The
    /// client's next request is what makes it urgent; `ResponseGate` makes sure that one is seen.
    func complete(id: UInt64, fd: Int32, _ completion: Completion, wake: Bool = true) {
        inbox.withLock { inbox in
            guard !inbox.closed else { return }
            inbox.completions.append((id, fd, completion))
            if wake {
                wakeLocked(&inbox)
            } else {
                quietCompletions.store(true, ordering: .releasing)
            }
        }
    }

    /// Starts the graceful shutdown of this loop.
    func requestShutdown() {
        shutdownAsked.store(true, ordering: .releasing)
        inbox.withLock { inbox in
            guard !inbox.closed else { return }
            inbox.shutdownRequested = true
            wakeLocked(&inbox)
        }
    }

    private func wakeLocked(_ inbox: inout Inbox) {
        guard !inbox.wakePending else { return }
        inbox.wakePending = true
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: The loop

    /// Runs until shutdown completes (or its grace period ends), then releases every descriptor.
    func run() {
        let capacity = 512
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        var nextSweep = monotonicNanoseconds() + sweepInterval
        while true {
            let timeout = Int32(clamping: sweepInterval / 1_000_000)
            let count: Int32
            do {
                count = try blockingSystemCall("epoll_wait") { epoll_wait(epollFD, events, Int32(capacity), timeout) }
            } catch {
                settings.log("herald-http: \(error); stopping this event loop")
                break
            }
            if quietCompletions.load(ordering: .acquiring) { drainInbox(readingWakeFD: false) }
            for index in 0..<Int(count) {
                let event = events[index]
                let fd = Int32(truncatingIfNeeded: event.data.u64)
                if fd == wakeFD {
                    drainInbox(readingWakeFD: true)
                } else if fd == listenFD {
                    acceptConnections()
                } else if let connection = connections[fd] {
                    handle(event.events, on: connection)
                }
            }
            let now = monotonicNanoseconds()
            if now >= nextSweep {
                sweep(now: now)
                nextSweep = now + sweepInterval
            }
            if shuttingDown && (connections.isEmpty || now >= graceDeadline) { break }
        }
        finish()
    }

    /// Takes the handlers' completions; `readingWakeFD` when the eventfd woke the loop.
    func drainInbox(readingWakeFD: Bool) {
        if readingWakeFD {
            var counter: UInt64 = 0
            _ = read(wakeFD, &counter, 8)
        }
        let (completions, shutdown) = inbox.withLock { inbox in
            if readingWakeFD { inbox.wakePending = false }
            quietCompletions.store(false, ordering: .relaxed)
            let taken = inbox.completions
            inbox.completions.removeAll(keepingCapacity: true)
            return (taken, inbox.shutdownRequested)
        }
        // Shutdown first: a response that completes after shutdown was asked for carries
        // `Connection: close` (the two may arrive in the same wake-up, in either order).
        if shutdown && !shuttingDown { beginShutdown() }
        for (id, fd, completion) in completions {
            guard let connection = connections[fd], connection.id == id else { continue }
            if case .resumeBody = completion {} else {
                // The request has left its handler: the next one starts with clear flags.
                connection.withHandler = false
                connection.gate.state.withLock { state in
                    state.inputWhileHandled = false
                    state.quietlyCompleted = false
                }
            }
            switch completion {
            case .response(let response):
                apply(connection.machine.responseReady(response), to: connection)
            case .written(let close, let remaining):
                connection.machine.responseSerialized(close: close)
                connection.writeBuffer.append(contentsOf: remaining)
            case .failed:
                closeConnection(connection)
                continue
            case .resumeBody:
                connection.machine.resumeBody(now: monotonicNanoseconds())
            }
            // Once answered, nothing more of a streamed body is read.
            if connection.machine.streamedBody == .none && connection.machine.responseTerms == nil { connection.bodyStream = nil }
            drive(connection)
        }
    }

    private func acceptConnections() {
        guard !shuttingDown, acceptPausedUntil == nil else { return }
        for _ in 0..<Self.acceptBatch {
            do {
                guard let (fd, remote) = try Socket.accept(listenFD) else { return }
                let now = monotonicNanoseconds()
                nextConnectionID += 1
                let machine = ConnectionStateMachine(limits: settings.limits, streaming: settings.streaming, timeouts: settings.timeouts, now: now)
                let connection = Connection(fd: fd, id: nextConnectionID, remoteAddress: remote, machine: machine)
                do {
                    try add(fd, events: EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue)
                } catch {
                    close(fd)
                    settings.log("herald-http: \(error)")
                    continue
                }
                connections[fd] = connection
            } catch {
                switch error.errno {
                case ECONNABORTED, EPROTO, EPERM:
                    continue  // that one connection is gone; others may be waiting
                case EINVAL:
                    return  // the listener was shut down: the server is stopping
                default:
                    // Out of descriptors or memory: the listening socket stays readable, so stop
                    // watching it for a moment instead of spinning.
                    settings.log("herald-http: \(error); pausing accept for 100 ms")
                    _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, listenFD, nil)
                    acceptPausedUntil = monotonicNanoseconds() + 100_000_000
                    return
                }
            }
        }
    }

    private func sweep(now: UInt64) {
        if let until = acceptPausedUntil, now >= until, !shuttingDown {
            acceptPausedUntil = nil
            try? add(listenFD, events: EPOLLIN.rawValue | EPOLLEXCLUSIVE.rawValue)
        }
        for connection in Array(connections.values) {
            if let until = connection.drainingUntil {
                if now >= until { closeConnection(connection) }
                continue
            }
            if now >= connection.machine.deadline {
                apply(connection.machine.timeoutCheck(now: now), to: connection)
                drive(connection)
            }
        }
    }

    private func beginShutdown() {
        shuttingDown = true
        graceDeadline = monotonicNanoseconds() + settings.gracePeriod
        if acceptPausedUntil == nil { _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, listenFD, nil) }
        onListenerReleased()
        for connection in Array(connections.values) {
            if connection.drainingUntil != nil {
                closeConnection(connection)
                continue
            }
            connection.gate.state.withLock { $0.shuttingDown = true }
            apply(connection.machine.beginShutdown(bufferEmpty: connection.readBuffer.isEmpty), to: connection)
        }
    }

    /// Releases the descriptors of a loop whose thread could not be started.
    func abandon() { finish() }

    private func finish() {
        if !shuttingDown { onListenerReleased() }
        for connection in Array(connections.values) { closeConnection(connection) }
        inbox.withLock { inbox in
            inbox.closed = true
            inbox.completions.removeAll()
            close(wakeFD)
        }
        close(epollFD)
    }

    private func add(_ fd: Int32, events: UInt32) throws(SystemCallError) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = UInt64(UInt32(bitPattern: fd))
        _ = try blockingSystemCall("epoll_ctl") { epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) }
    }
}

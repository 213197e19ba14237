import Glibc
import HeraldSync
import Synchronization

/// A request handler: synchronous, run on a handler thread, never on an event loop, so it may block.
public typealias HTTPHandler = @Sendable (HTTPRequest) -> HTTPResponse

/// Answers the requests it can without blocking, on the event loop (nil: hand it to a handler
/// thread). It must never block, sleep or wait for a lock held long: the loop serves every
/// connection of its thread.
public typealias LoopHandler = @Sendable (HTTPRequest) -> HTTPResponse?

/// Which requests have their body streamed to the handler as it arrives (`HTTPRequest.bodyStream`)
/// instead of held whole, and the most each may carry: called with the head (no body yet) of a
/// request that has a body; nil keeps the server's `maxBodyBytes` and the whole body in memory.
/// Called on the event loop, so it must be quick (a route lookup).
public typealias BodyStreamingRule = @Sendable (_ head: HTTPRequest) -> Int?

/// Where a request goes once it is read, decided on the event loop in one step (one route lookup).
public enum LoopDecision: Sendable {
    /// Answered on the loop itself (it must not have blocked).
    case answered(HTTPResponse)
    /// Short work: the quick handlers (`Configuration.quickHandlerThreads`), when there are any.
    case quickHandler
    /// The handlers that may wait long.
    case handler
}

/// Decides each request's `LoopDecision`. Called on the event loop, so it must be quick itself;
/// given to the server, it takes the place of a `LoopHandler`. It may note on the request what it
/// found (its route), for the handler.
public typealias DispatchRule = @Sendable (inout HTTPRequest) -> LoopDecision

/// An HTTP/1.1 server on raw sockets and epoll.
///
/// All loops share one listening socket; each registers it with `EPOLLEXCLUSIVE`, so the kernel
/// wakes one loop per incoming connection and that loop accepts a batch. This keeps a single
/// socket (no silent port sharing between two processes as with `SO_REUSEPORT`, and port 0 just
/// works) without an acceptor thread handing connections over.
public final class HTTPServer: Sendable {
    private enum Phase { case idle, running, stopping, stopped }

    private struct State {
        var phase = Phase.idle
        var port = 0
        var loops: [EventLoop] = []
        var pool: HandlerPool?
        var quickPool: HandlerPool?
        var listenFD: Int32 = -1
        var loopsRunning = 0
        var listenersHeld = 0
    }

    /// The configuration the server was created with.
    public let configuration: Configuration
    private let handler: HTTPHandler
    private let loopHandler: LoopHandler?
    private let streaming: BodyStreamingRule?
    private let dispatch: DispatchRule?
    private let state = Mutex(State())
    /// Whether the server has stopped, for `wait()`.
    private let stopped = ConditionLock(false)

    /// A server that answers every request with `handler` (typically `router.handle`). A request
    /// that `loopHandler` answers is answered on the event loop itself, without queueing for a
    /// handler thread: a liveness probe then answers even when every handler is busy. A request
    /// that `streaming` gives a limit reaches `handler` as soon as its head is in, its body
    /// following through `HTTPRequest.bodyStream`.
    /// With `dispatch`, each request is answered on the loop or sent to the quick handlers or the
    /// others as it decides (and `loopHandler` is not asked).
    public init(configuration: Configuration, loopHandler: LoopHandler? = nil, streaming: BodyStreamingRule? = nil,
                dispatch: DispatchRule? = nil, handler: @escaping HTTPHandler) {
        self.configuration = configuration
        self.loopHandler = loopHandler
        self.streaming = streaming
        self.dispatch = dispatch
        self.handler = handler
    }

    /// The bound port (the real one when the configuration asked for port 0); 0 before `start`.
    public var port: Int { state.withLock { $0.port } }

    /// Binds, starts the handler threads and event loops, and returns.
    public func start() throws {
        let loops: [EventLoop] = try state.withLock { state in
            guard state.phase == .idle else { throw SystemCallError(call: "HTTPServer.start (already started)", errno: EINVAL) }
            // Writes use MSG_NOSIGNAL; this also covers any other write to a closed socket.
            signal(SIGPIPE, SIG_IGN)
            let listenFD = try Socket.listen(host: configuration.host, port: configuration.port, backlog: configuration.backlog)
            do {
                state.port = try Socket.boundPort(listenFD)
                let pool = try HandlerPool(threads: configuration.handlerThreads, queueLimit: configuration.handlerQueueLimit)
                state.pool = pool
                if dispatch != nil && configuration.quickHandlerThreads > 0 {
                    state.quickPool = try HandlerPool(threads: configuration.quickHandlerThreads, queueLimit: configuration.handlerQueueLimit,
                                                      name: "herald-quick")
                }
                let settings = LoopSettings(limits: configuration.parserLimits, timeouts: configuration.timeouts,
                                            gracePeriod: configuration.shutdownGracePeriod.nanoseconds,
                                            handler: handler, loopHandler: loopHandler, streaming: streaming,
                                            streamSlots: StreamSlots(limit: configuration.maxStreamedRequests), pool: pool,
                                            dispatch: dispatch, quickPool: state.quickPool,
                                            log: configuration.log)
                for index in 0..<max(1, configuration.eventLoops) {
                    state.loops.append(try EventLoop(index: index, listenFD: listenFD, settings: settings) { [self] in
                        listenerReleased()
                    })
                }
            } catch {
                state.pool?.stop()
                state.quickPool?.stop()
                for loop in state.loops {
                    close(loop.wakeFD)
                    close(loop.epollFD)
                }
                state.loops = []
                close(listenFD)
                throw error
            }
            state.listenFD = listenFD
            state.listenersHeld = state.loops.count
            state.loopsRunning = state.loops.count
            state.phase = .running
            return state.loops
        }
        for (index, loop) in loops.enumerated() {
            do {
                try startServerThread(name: "herald-loop-\(index)") { [self] in
                    loop.run()
                    loopFinished()
                }
            } catch {
                // The loops that will never run give back what they hold; the others stop.
                for unstarted in loops[index...] {
                    unstarted.abandon()
                    loopFinished()
                }
                shutdown()
                throw error
            }
        }
    }

    /// Begins a graceful shutdown and returns at once: stop accepting, close idle connections,
    /// finish requests in flight (answered with `Connection: close`), then stop — or stop anyway
    /// when the grace period ends. `wait()` returns when it is done.
    public func shutdown() {
        let loops: [EventLoop] = state.withLock { state in
            switch state.phase {
            case .idle:
                state.phase = .stopped
                markStopped()
                return []
            case .running:
                state.phase = .stopping
                // Refuse new connections at once (Linux stops listening on shutdown of a listening
                // socket); the descriptor itself is closed when the last loop has let go of it.
                if state.listenFD >= 0 { Glibc.shutdown(state.listenFD, Int32(SHUT_RDWR)) }
                return state.loops
            case .stopping, .stopped:
                return []
            }
        }
        for loop in loops { loop.requestShutdown() }
    }

    /// Blocks until the server has stopped; returns at once if it was never started.
    public func wait() {
        if state.withLock({ $0.phase == .idle }) { return }
        stopped.wait { $0 ? () : nil }
    }

    /// Each loop lets go of the listening socket; the last one closes it, so no loop ever
    /// calls accept on a descriptor number that was closed and reused.
    private func listenerReleased() {
        state.withLock { state in
            state.listenersHeld -= 1
            if state.listenersHeld == 0 && state.listenFD >= 0 {
                close(state.listenFD)
                state.listenFD = -1
            }
        }
    }

    private func loopFinished() {
        let allDone = state.withLock { state in
            state.loopsRunning -= 1
            guard state.loopsRunning == 0 else { return false }
            state.phase = .stopped
            state.pool?.stop()
            state.quickPool?.stop()
            state.loops = []
            return true
        }
        if allDone { markStopped() }
    }

    private func markStopped() {
        stopped.withLock { $0 = true }
        stopped.broadcast()
    }
}

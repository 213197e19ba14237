import HeraldSync
import HeraldHTTP

#if canImport(Glibc)
import Glibc
#endif

extension FCMEmulator {
    /// The emulator as a HeraldHTTP handler.
    ///
    /// HeraldHTTP cannot yet close a connection without answering, so an injected dropped
    /// connection is answered `502` with `Connection: close` — a retryable failure to the sender,
    /// like a real drop, but not the same on the wire.
    public var httpHandler: HTTPHandler {
        { [self] request in
            let answer = handle(EmulatorRequest(
                method: request.method.rawValue, target: request.target,
                headers: request.headers.map { (name: $0.name, value: $0.value) }, body: request.body))
            switch answer {
            case .dropConnection:
                return HTTPResponse(status: 502, headers: ["Connection": "close"])
            case .respond(let response, let delay):
                if let delay { sleepThread(for: delay) }  // a handler thread, never an event loop
                return HTTPResponse(status: response.status, headers: HTTPHeaders(response.headers.map { ($0.name, $0.value) }), body: response.body)
            }
        }
    }

    /// Starts serving on `host:port` (port 0 picks a free one; read it from the returned server's
    /// `port`). Stop it with `shutdown()` and `wait()`.
    public func start(host: String = "127.0.0.1", port: Int = 0) throws -> HTTPServer {
        try start(configuration: HTTPServer.Configuration(host: host, port: port))
    }

    /// Starts serving with a full server configuration (threads, limits). Without faults nothing
    /// the emulator does waits (no injected delay), so it answers on the event loops: the hop to a
    /// handler thread and back cost a sink as much as checking the message.
    public func start(configuration: HTTPServer.Configuration) throws -> HTTPServer {
        let handler = httpHandler
        let answerOnLoop: LoopHandler = { request in handler(request) }
        let onLoop = self.configuration.faults.isActive ? nil : answerOnLoop
        let server = HTTPServer(configuration: configuration, loopHandler: onLoop, handler: handler)
        try server.start()
        return server
    }
}



import Glibc

extension HTTPServer {
    /// Where to listen, how many threads, and the limits and timeouts every connection obeys.
    public struct Configuration: Sendable {
        /// Address to bind: numeric IPv4/IPv6 or a host name. Default `127.0.0.1`.
        public var host: String
        /// TCP port; 0 picks a free one (read it back from `HTTPServer.port`). Default 8080.
        public var port: Int
        /// Event-loop threads. Default: the number of online cores.
        public var eventLoops: Int
        /// Threads running handlers (they may block, e.g. on libpq). Default 16.
        public var handlerThreads: Int
        /// Threads of their own for the requests the server's `DispatchRule` sends there (short
        /// database work), so that few threads serve them without crowding the cores, and no
        /// slow request (a call to another service, an upload) can hold them. 0: one pool for all.
        /// Default: two per core.
        public var quickHandlerThreads: Int
        /// Requests that may wait for a handler thread; beyond it the answer is 503 with `Retry-After: 1`. Default 1024.
        public var handlerQueueLimit: Int
        /// Longest request-line (414 beyond). Default 8 KiB.
        public var maxRequestLineBytes: Int
        /// Largest header block (431 beyond). Default 32 KiB.
        public var maxHeaderBytes: Int
        /// Most header fields (431 beyond). Default 100.
        public var maxHeaderCount: Int
        /// Largest request body (413 beyond). Default 1 MiB. Streamed bodies have their own limit.
        public var maxBodyBytes: Int
        /// Requests with a streamed body handled at once (503 beyond): each holds a handler thread
        /// while its client sends. Default 4.
        public var maxStreamedRequests: Int
        /// Time to receive a whole header block, from its first byte (408 beyond). Default 10 s.
        public var headerTimeout: Duration
        /// Time to receive a body once the head is in (408 beyond); also the time a client gets to read a response. Default 30 s.
        public var bodyTimeout: Duration
        /// Time a keep-alive connection may sit between requests before it is closed. Default 60 s.
        public var idleTimeout: Duration
        /// Longest a graceful shutdown waits for requests in flight. Default 10 s.
        public var shutdownGracePeriod: Duration
        /// Pending-connection queue of the listening socket. Default 1024.
        public var backlog: Int32
        /// Where the server reports trouble it cannot answer to a client (failed accepts, a loop
        /// that stopped). Default: standard error.
        public var log: @Sendable (String) -> Void

        public init(
            host: String = "127.0.0.1", port: Int = 8080, eventLoops: Int = Configuration.onlineCores,
            handlerThreads: Int = 16, quickHandlerThreads: Int = 2 * Configuration.onlineCores, handlerQueueLimit: Int = 1024,
            maxRequestLineBytes: Int = 8 * 1024, maxHeaderBytes: Int = 32 * 1024, maxHeaderCount: Int = 100,
            maxBodyBytes: Int = 1024 * 1024, maxStreamedRequests: Int = 4,
            headerTimeout: Duration = .seconds(10), bodyTimeout: Duration = .seconds(30), idleTimeout: Duration = .seconds(60),
            shutdownGracePeriod: Duration = .seconds(10), backlog: Int32 = 1024,
            log: @escaping @Sendable (String) -> Void = Configuration.logToStandardError
        ) {
            self.host = host
            self.port = port
            self.eventLoops = eventLoops
            self.handlerThreads = handlerThreads
            self.quickHandlerThreads = quickHandlerThreads
            self.handlerQueueLimit = handlerQueueLimit
            self.maxRequestLineBytes = maxRequestLineBytes
            self.maxHeaderBytes = maxHeaderBytes
            self.maxHeaderCount = maxHeaderCount
            self.maxBodyBytes = maxBodyBytes
            self.maxStreamedRequests = maxStreamedRequests
            self.headerTimeout = headerTimeout
            self.bodyTimeout = bodyTimeout
            self.idleTimeout = idleTimeout
            self.shutdownGracePeriod = shutdownGracePeriod
            self.backlog = backlog
            self.log = log
        }

        /// Writes a line to standard error (descriptor 2) with one write call.
        public static let logToStandardError: @Sendable (String) -> Void = { message in
            let line = Array((message + "\n").utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        }

        /// The number of online processors, at least 1.
        public static var onlineCores: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

        var parserLimits: HTTPParserLimits {
            HTTPParserLimits(maxRequestLineBytes: maxRequestLineBytes, maxHeaderBytes: maxHeaderBytes,
                             maxHeaderCount: maxHeaderCount, maxBodyBytes: maxBodyBytes)
        }

        var timeouts: ConnectionStateMachine.Timeouts {
            .init(header: headerTimeout.nanoseconds, body: bodyTimeout.nanoseconds, idle: idleTimeout.nanoseconds,
                  write: bodyTimeout.nanoseconds)
        }
    }
}

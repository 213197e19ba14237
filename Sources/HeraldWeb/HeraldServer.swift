import HeraldApp
import HeraldHTTP

/// Herald's web service: the application's services behind the route table, on the raw-socket
/// server, with the scheduler and delivery workers beside it.
public final class HeraldServer: Sendable {
    public let application: HeraldApplication
    /// The server's own settings, read from the same environment as the application's.
    public let settings: WebSettings
    let web: WebApplication
    let http: HTTPServer

    /// Builds the service; nothing listens until `start()`. Fails on an unreadable service-account key.
    public init(configuration: HeraldConfiguration, log: Log) throws {
        let settings = try WebSettings(environment: configuration.environment)
        self.settings = settings
        application = try HeraldApplication(configuration: configuration, log: log)
        web = WebApplication(app: application, settings: settings)
        var server = HTTPServer.Configuration()
        server.host = settings.host
        server.port = settings.port
        server.handlerThreads = settings.handlerThreads
        if let quick = settings.quickHandlerThreads { server.quickHandlerThreads = quick }
        server.handlerQueueLimit = settings.handlerQueueLimit
        server.maxBodyBytes = settings.maxBodyBytes
        if let loops = settings.eventLoops { server.eventLoops = loops }
        let web = web
        http = HTTPServer(configuration: server, streaming: { head in web.streamedBodyLimit(head) },
                          dispatch: { request in web.dispatch(&request) }) { request in
            web.respond(request)
        }
    }

    /// Answers one request in-process (request in, response out), as the socket would.
    public func respond(_ request: HTTPRequest) -> HTTPResponse { web.respond(request) }

    /// Every route with its access rule, for the access test.
    var routes: [(method: HTTPMethod, pattern: String, route: Route)] { web.routes.routes.map { ($0.method, $0.pattern, $0.value) } }

    /// Applies missing migrations (when configured), starts listening, then the delivery engine.
    public func start() throws {
        try application.migrate()
        try http.start()
        application.log.info("listening", ["address": .string("http://\(settings.host):\(http.port)")])
        application.startWorkers()
    }

    /// The port actually bound (useful with port 0).
    public var port: Int { http.port }

    /// Stops the engine and the server: no new work, what is in flight finishes, then `wait()` returns.
    public func shutdown() {
        application.stopWorkers(waiting: false)
        http.shutdown()
    }

    /// Blocks until the server has stopped, then stops the delivery engine and waits for its
    /// current round (bounded by the FCM request timeout), so a restart repeats no request.
    public func wait() {
        http.wait()
        application.stopWorkers(waiting: true)
    }

    /// The HTTP server, for wiring signal handling.
    public var httpServer: HTTPServer { http }
}

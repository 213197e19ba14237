import HeraldCore
import HeraldFCM
import HeraldHTTP
import HeraldJSON
import HeraldPostgres

/// Herald's web service: the routes of every part, over one database pool, on the raw-socket server.
public final class HeraldServer: Sendable {
    public let configuration: HeraldConfiguration
    public let pool: PostgresPool
    let log: Log
    let http: HTTPServer

    /// Builds the service; nothing listens until `start()`. Fails on an unreadable service-account key.
    public init(configuration: HeraldConfiguration, log: Log) throws {
        self.configuration = configuration
        self.log = log
        pool = PostgresPool(url: configuration.databaseURL, maxConnections: configuration.databasePoolSize,
                            acquireTimeout: .seconds(5))
        var server = HTTPServer.Configuration()
        server.host = configuration.host
        server.port = configuration.port
        server.handlerThreads = configuration.handlerThreads
        server.handlerQueueLimit = configuration.handlerQueueLimit
        server.maxBodyBytes = configuration.maxBodyBytes
        if let loops = configuration.eventLoops { server.eventLoops = loops }
        let sender = try SenderSetup.make(configuration, log: log)
        let router = Self.router(pool: pool, log: log, configuration: configuration, sender: sender)
        http = HTTPServer(configuration: server) { request in router.handle(request) }
    }

    /// Every route of the service; the access-control test walks this same table.
    static func router(pool: PostgresPool, log: Log, configuration: HeraldConfiguration, sender: FCMSender?) -> Router {
        var router = Router()
        router.notFound = { request in Problem.notFound("Nothing at \(request.path)").httpResponse }
        router.methodNotAllowed = { request, allowed in
            Problem(status: 405, code: "method_not_allowed", title: "Method not allowed",
                    detail: "\(request.method.rawValue) is not allowed here; use \(allowed.map(\.rawValue).joined(separator: ", ")).").httpResponse
        }
        HealthAPI(pool: pool, log: log).register(on: &router)
        CampaignsAPI(pool: pool, log: log).register(on: &router)
        SendingAPI(pool: pool, log: log, sender: sender, buckets: AudienceBuckets(count: configuration.audienceBuckets))
            .register(on: &router)
        StaticFiles(directory: configuration.publicDirectory).register(on: &router)
        return router
    }

    /// Applies missing migrations (when configured) and starts listening.
    public func start() throws {
        if configuration.migrateOnStart {
            let applied = try pool.withConnection { try Migrator(directory: configuration.migrationsDirectory).migrate($0) }
            log.info("migrations applied", ["directory": .string(configuration.migrationsDirectory),
                                            "applied": .number(Double(applied.count))])
        }
        try http.start()
        log.info("listening", ["address": .string("http://\(configuration.host):\(http.port)")])
    }

    /// The port actually bound (useful with port 0).
    public var port: Int { http.port }

    /// Stops accepting, finishes what is in flight, then returns from `wait()`.
    public func shutdown() { http.shutdown() }

    /// Blocks until the server has stopped.
    public func wait() { http.wait() }

    /// The HTTP server, for wiring signal handling.
    public var httpServer: HTTPServer { http }
}

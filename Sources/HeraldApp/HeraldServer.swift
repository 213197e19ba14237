#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HeraldCore
import HeraldFCM
import HeraldHTTP
import HeraldJSON
import HeraldPostgres

/// Herald's web service: the routes of every part, over one database pool, on the raw-socket
/// server, with the scheduler and delivery workers beside it.
public final class HeraldServer: Sendable {
    public let configuration: HeraldConfiguration
    public let pool: PostgresPool
    public let metrics = Metrics()
    let log: Log
    let http: HTTPServer
    let engine: DeliveryEngine?

    /// Builds the service; nothing listens until `start()`. Fails on an unreadable service-account key.
    public init(configuration: HeraldConfiguration, log: Log) throws {
        self.configuration = configuration
        self.log = log
        pool = PostgresPool(url: configuration.databaseURL, maxConnections: configuration.databasePoolSize,
                            acquireTimeout: .seconds(5))
        let sender = try SenderSetup.make(configuration, log: log)
        if let sender, configuration.schedulerEnabled {
            var settings = DeliveryEngine.Configuration()
            settings.workers = configuration.deliveryWorkers
            settings.pollInterval = .seconds(configuration.schedulerPollSeconds)
            settings.lease = .seconds(configuration.deliveryLeaseSeconds)
            settings.batchSize = configuration.deliveryBatchSize
            settings.buckets = AudienceBuckets(count: configuration.audienceBuckets)
            engine = DeliveryEngine(configuration: settings, pool: pool, databaseURL: configuration.databaseURL,
                                    sender: sender, log: log, metrics: metrics)
        } else {
            engine = nil
        }
        var server = HTTPServer.Configuration()
        server.host = configuration.host
        server.port = configuration.port
        server.handlerThreads = configuration.handlerThreads
        server.handlerQueueLimit = configuration.handlerQueueLimit
        server.maxBodyBytes = configuration.maxBodyBytes
        if let loops = configuration.eventLoops { server.eventLoops = loops }
        let router = Self.router(pool: pool, log: log, configuration: configuration, sender: sender, metrics: metrics)
        let metrics = metrics
        http = HTTPServer(configuration: server) { request in
            Self.observed(request, log: log, metrics: metrics) { router.route($0) }
        }
    }

    /// Every route of the service; the access-control test walks this same table.
    static func router(pool: PostgresPool, log: Log, configuration: HeraldConfiguration, sender: FCMSender?,
                       metrics: Metrics = Metrics()) -> Router {
        var router = Router()
        router.notFound = { request in Problem.notFound("Nothing at \(request.path)").httpResponse }
        router.methodNotAllowed = { request, allowed in
            Problem(status: 405, code: "method_not_allowed", title: "Method not allowed",
                    detail: "\(request.method.rawValue) is not allowed here; use \(allowed.map(\.rawValue).joined(separator: ", ")).").httpResponse
        }
        let access = AccessControl(pool: pool, log: log, configuration: configuration)
        HealthAPI(pool: pool, log: log).register(on: &router, access: access)
        CampaignsAPI(pool: pool, log: log).register(on: &router, access: access)
        LifecycleAPI(pool: pool, log: log).register(on: &router, access: access)
        SendingAPI(pool: pool, log: log, sender: sender, buckets: AudienceBuckets(count: configuration.audienceBuckets))
            .register(on: &router, access: access)
        MetricsAPI(pool: pool, metrics: metrics).register(on: &router, access: access)
        StaticFiles(directory: configuration.publicDirectory).register(on: &router, access: access)
        SignInPages(access: access, configuration: configuration).register(on: &router)
        AccountsAPI(access: access).register(on: &router)
        AccountsPages(access: access).register(on: &router)
        ComposerRoutes.register(on: &router, access: access, pool: pool, log: log, configuration: configuration, sender: sender)
        return router
    }

    /// Runs a request with a request id (the client's `X-Request-Id` when sane, else a new one),
    /// answers it in `X-Request-Id`, logs one line and counts it by route pattern (not by path,
    /// which would make a metric per campaign id) and status.
    static func observed(_ request: HTTPRequest, log: Log, metrics: Metrics,
                         _ handle: (HTTPRequest) -> (response: HTTPResponse, pattern: String?)) -> HTTPResponse {
        let clock = ContinuousClock()
        let start = clock.now
        let incoming = request.headers["X-Request-Id"] ?? ""
        let requestID = !incoming.isEmpty && incoming.utf8.count <= 128 && incoming.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) })
            ? incoming : UUID().uuidString.lowercased()
        var (response, pattern) = handle(request)
        let route = pattern ?? "unmatched"
        response.headers.set("X-Request-Id", requestID)
        let elapsed = start.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let status = String(response.status)
        metrics.increment("herald_http_requests_total", [("method", request.method.rawValue), ("route", route), ("status", status)],
                          help: "HTTP requests answered, by method, route pattern and status.")
        metrics.observe("herald_http_request_duration_seconds", seconds, [("method", request.method.rawValue), ("route", route)],
                        bounds: Metrics.durationBounds, help: "Seconds to answer an HTTP request, by method and route pattern.")
        if request.path != "/healthz" && request.path != "/metrics" {
            log.info("request", ["request_id": .string(requestID), "method": .string(request.method.rawValue),
                                 "path": .string(request.path), "route": .string(route), "status": .number(Double(response.status)),
                                 "duration_ms": .number((seconds * 1_000_000).rounded() / 1000),
                                 "remote": .string(request.remoteAddress)])
        }
        return response
    }

    /// Applies missing migrations (when configured), starts listening, then the delivery engine.
    public func start() throws {
        if configuration.migrateOnStart {
            let applied = try pool.withConnection { try Migrator(directory: configuration.migrationsDirectory).migrate($0) }
            log.info("migrations applied", ["directory": .string(configuration.migrationsDirectory),
                                            "applied": .number(Double(applied.count))])
        }
        try http.start()
        log.info("listening", ["address": .string("http://\(configuration.host):\(http.port)")])
        engine?.start()
    }

    /// The port actually bound (useful with port 0).
    public var port: Int { http.port }

    /// Stops the engine and the server: no new work, what is in flight finishes, then `wait()` returns.
    public func shutdown() {
        engine?.stop()
        http.shutdown()
    }

    /// Blocks until the server has stopped, then stops the delivery engine and waits for its
    /// current round (bounded by the FCM request timeout), so a restart repeats no request.
    public func wait() {
        http.wait()
        engine?.stop()
        engine?.waitUntilStopped(timeout: .seconds(40))
    }

    /// The HTTP server, for wiring signal handling.
    public var httpServer: HTTPServer { http }
}

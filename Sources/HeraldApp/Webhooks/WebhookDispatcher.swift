import Foundation
import HeraldCore
import HeraldFCM
import HeraldPostgres
import HeraldSync
import Synchronization

/// Posts webhook deliveries from the outbox on threads of its own: a receiver that hangs holds
/// one of these threads for its timeout and nothing else (no request, no send worker, no pooled
/// connection). Each thread leases one endpoint at a time and posts its deliveries in order; a
/// failure waits for its retry before anything behind it is posted, so a receiver that was down
/// gets its events in the order they happened. Every process runs one; they share the outbox.
final class WebhookDispatcher: Sendable {
    /// Deliveries of one endpoint posted under one lease before the endpoints are looked at again.
    static let deliveriesPerClaim = 20
    static let lease: Duration = .seconds(60)
    static let maxResponseBytes = 64 * 1024

    let settings: WebhookSettings
    let pool: PostgresPool
    let databaseURL: String
    let client: CurlHTTPClient
    let log: Log
    let metrics: Metrics
    let owner: String
    let bell = Wakeup()
    let threads = RunningThreads()
    let store = WebhookStore()

    init(settings: WebhookSettings, pool: PostgresPool, databaseURL: String, caFile: String?, log: Log, metrics: Metrics) {
        self.settings = settings
        self.pool = pool
        self.databaseURL = databaseURL
        client = CurlHTTPClient(caFile: caFile, maxIdleSessions: max(1, settings.threads))
        self.log = log
        self.metrics = metrics
        owner = "\(ProcessInfo.processInfo.hostName):\(getpid()):\(UUID().uuidString.prefix(8))"
    }

    /// Starts the threads. Without `listening`, another thread of the process listens for them
    /// (`notificationRoutes`).
    func start(listening: Bool = true) {
        guard settings.threads > 0 else { return }
        var bodies: [(name: String, body: @Sendable () -> Void)] = []
        if listening { bodies.append(("herald-webhook-listener", { [self] in listen() })) }
        for index in 0..<settings.threads {
            bodies.append(("herald-webhook-\(index)", { [self] in dispatch(index) }))
        }
        for name in threads.start(bodies) { log.error("\(name) could not be started: the system has no thread to spare") }
    }

    /// The bells a notification listener rings for these threads.
    var notificationRoutes: [String: [Wakeup]] { settings.threads > 0 ? [WebhookOutbox.channel: [bell]] : [:] }

    /// Asks the threads to stop after the post in flight (at most the receiver timeout).
    func stop() { bell.stop() }

    @discardableResult
    func waitUntilStopped(timeout: Duration) -> Bool { threads.waitUntilStopped(timeout: timeout) }

    func listen() {
        NotificationListener(databaseURL: databaseURL, routes: notificationRoutes, log: log).run { [self] in bell.isStopped }
    }

    func dispatch(_ index: Int) {
        var lastSweep: ContinuousClock.Instant?
        while !bell.isStopped {
            let seen = bell.generation
            // LISTEN wakes the threads when an event is written; this is only the fallback.
            var wait: Duration = .seconds(30)
            do {
                if index == 0, lastSweep.map({ $0.duration(to: .now) >= .seconds(3600) }) ?? true {
                    lastSweep = .now
                    _ = try pool.withConnection { try store.dropDelivered(olderThanDays: settings.retentionDays, on: $0) }
                }
                if let claimed = try pool.withConnection({ try store.claim(owner: owner, lease: Self.lease, limit: Self.deliveriesPerClaim, on: $0) }) {
                    post(claimed)
                    continue
                }
                if let seconds = try pool.withConnection({ try store.secondsUntilNextDue(on: $0) }) {
                    wait = min(wait, .milliseconds(max(5, Int((seconds * 1000).rounded(.up)))))
                }
            } catch {
                log.warning("webhook dispatcher \(index): \(error)")
                wait = .seconds(1)
            }
            bell.wait(after: seen, timeout: wait)
        }
    }

    /// Posts the claimed deliveries in order until one fails (it waits for its retry, and the rest
    /// behind it), then gives the endpoint back.
    func post(_ claimed: WebhookStore.Claimed) {
        defer {
            do { try pool.withConnection { try store.release(claimed.webhookID, owner: owner, on: $0) } } catch {
                log.warning("releasing webhook \(claimed.webhookID): \(error)")  // its lease expires instead
            }
        }
        for delivery in claimed.deliveries where !bell.isStopped {
            let body = Array(delivery.body.utf8)
            let request = HTTPClientRequest(
                method: "POST", url: claimed.url,
                headers: [("Content-Type", "application/json"), ("User-Agent", "Herald-Webhooks/1"),
                          ("Herald-Webhook-Id", String(delivery.id)), ("Herald-Event", delivery.eventType),
                          (WebhookSignature.headerName, WebhookSignature.header(secret: claimed.secret, timestamp: Int(Date().timeIntervalSince1970), body: body))],
                body: body, timeout: .seconds(settings.timeoutSeconds), maxResponseBytes: Self.maxResponseBytes,
                refusePrivateAddresses: !settings.privateAddresses)
            let (delivered, status, error) = switch client.perform(request) {
            case .success(let response) where (200..<300).contains(response.status): (true, Optional(response.status), String?.none)
            case .success(let response): (false, Optional(response.status), Optional("The receiver answered HTTP \(response.status); only 2xx counts as delivered."))
            case .failure(let failure): (false, Int?.none, Optional("No answer: \(failure.message)"))
            }
            let delay = delivered ? nil : settings.retrySchedule.delay(afterAttempt: delivery.attempts + 1, jitter: Double.random(in: 0..<1))
            metrics.increment("herald_webhook_attempts_total", [("outcome", delivered ? "delivered" : delay == nil ? "dead" : "retry")],
                              help: "Webhook posts by outcome: delivered (2xx), retry (failed, tried again later), dead (failed for the last time).")
            do {
                try pool.withConnection {
                    try store.record(delivery.id, webhookID: claimed.webhookID, owner: owner, delivered: delivered, responseStatus: status,
                                     error: error, retryDelay: delay, lease: Self.lease, on: $0)
                }
            } catch {
                log.warning("recording webhook delivery \(delivery.id): \(error)")
                return
            }
            if !delivered {
                log.info("webhook not delivered", ["webhook": .string(claimed.webhookID), "delivery": .number(Double(delivery.id)),
                                                   "error": .string(error ?? ""), "retry_in_seconds": delay.map { .number($0) } ?? .null])
                if delay != nil { return }  // the rest wait behind it, in order
            }
        }
    }
}

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
/// The threads are background services (`backgroundServices`), run by the application's runtime.
final class WebhookDispatcher: Sendable {
    /// Deliveries of one endpoint posted under one lease before the endpoints are looked at again.
    static let deliveriesPerClaim = 20
    /// The bytes of a receiver's answer kept for the log; the rest is never read, so a 2xx with a
    /// body of any length is delivered.
    static let maxResponseBytes = 64 * 1024

    let settings: WebhookSettings
    let pool: PostgresPool
    let client: CurlHTTPClient
    let log: Log
    let metrics: Metrics
    let owner: String
    let bell = Wakeup()
    let store = WebhookStore()

    init(settings: WebhookSettings, pool: PostgresPool, caFile: String?, owner: String, log: Log, metrics: Metrics) {
        self.settings = settings
        self.pool = pool
        client = CurlHTTPClient(caFile: caFile, maxIdleSessions: max(1, settings.threads))
        self.owner = owner
        self.log = log
        self.metrics = metrics
    }

    /// The bells a notification listener rings for the dispatch threads.
    var notificationRoutes: [String: [Wakeup]] { settings.threads > 0 ? [WebhookOutbox.channel: [bell]] : [:] }

    /// Dispatch on every instance (each thread leases one endpoint at a time), and the sweep of
    /// delivered webhooks once per deployment, on the leader.
    var backgroundServices: [BackgroundService] {
        var services = [BackgroundService("webhook-retention", .leader, every: .seconds(3600), step: { [self] _ in
            _ = try pool.withConnection { try store.dropDelivered(olderThanDays: settings.retentionDays, on: $0) }
            return nil
        })]
        // LISTEN wakes the threads when an event is written; the interval is only the fallback.
        if settings.threads > 0 {
            services.append(BackgroundService("webhook-dispatch", .everyInstance, every: .seconds(30), threads: settings.threads, bell: bell,
                                              step: { [self] _ in try dispatchStep() }))
        }
        return services
    }

    /// Posts what one endpoint has waiting (straight back for more), or says when the next retry falls due.
    func dispatchStep() throws -> Duration? {
        if let claimed = try pool.withConnection({ try store.claim(owner: owner, lease: settings.endpointLease, limit: Self.deliveriesPerClaim, on: $0) }) {
            post(claimed)
            return .zero
        }
        return try pool.withConnection({ try store.secondsUntilNextDue(on: $0) }).map { .milliseconds(max(5, Int(($0 * 1000).rounded(.up)))) }
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
            let deliveryID = String(delivery.id)
            let request = HTTPClientRequest(
                method: "POST", url: claimed.url,
                headers: [("Content-Type", "application/json"), ("User-Agent", "Herald-Webhooks/1"),
                          ("Herald-Webhook-Id", deliveryID), ("Herald-Event", delivery.eventType),
                          (WebhookSignature.headerName, WebhookSignature.header(secret: claimed.secret, deliveryID: deliveryID,
                                                                                timestamp: Int(Date().timeIntervalSince1970), body: body))],
                body: body, timeout: .seconds(settings.timeoutSeconds), maxResponseBytes: Self.maxResponseBytes,
                refusePrivateAddresses: !settings.privateAddresses)
            let (delivered, status, error) = switch client.perform(request) {
            case .success(let response) where (200..<300).contains(response.status): (true, Optional(response.status), String?.none)
            case .success(let response): (false, Optional(response.status), Optional("The receiver answered HTTP \(response.status); only 2xx counts as delivered."))
            case .failure(let failure): (false, Int?.none, Optional("No answer: \(failure.message)"))
            }
            let delay = delivered ? nil : settings.retrySchedule.delay(afterAttempt: delivery.attempts + 1)
            metrics.increment("herald_webhook_attempts_total", [("outcome", delivered ? "delivered" : delay == nil ? "dead" : "retry")],
                              help: "Webhook posts by outcome: delivered (2xx), retry (failed, tried again later), dead (failed for the last time).")
            do {
                try pool.withConnection {
                    try store.record(delivery.id, webhookID: claimed.webhookID, owner: owner, delivered: delivered, responseStatus: status,
                                     error: error, retryDelay: delay, lease: settings.endpointLease, on: $0)
                }
            } catch {
                log.warning("recording webhook delivery \(delivery.id): \(error)")
                return
            }
            if !delivered {
                log.info("webhook not delivered", ["webhook": .string(claimed.webhookID), "delivery": .number(Double(delivery.id)),
                                                   "error": .string(error ?? ""), "retry_in_seconds": delay.map { .number($0.seconds) } ?? .null])
                if delay != nil { return }  // the rest wait behind it, in order
            }
        }
    }
}

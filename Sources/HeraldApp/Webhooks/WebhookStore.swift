import Foundation
import HeraldCore
import HeraldPostgres

/// The SQL of webhook endpoints and their deliveries.
struct WebhookStore: Sendable {
    /// An endpoint as the dispatcher needs it, with the deliveries it now posts in order.
    struct Claimed: Sendable {
        var webhookID: String
        var url: String
        var secret: String
        var deliveries: [(id: Int64, eventType: String, body: String, attempts: Int)]
    }

    private static let columns: PostgresQuery = """
        w.id::text, w.url, w.events, w.description, w.created_by, w.created_at,
        (SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = \(constants: [WebhookDeliveryStatus.pending])) AS pending,
        (SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = \(constants: [WebhookDeliveryStatus.dead])) AS dead
        """

    func insert(url: String, events: [WebhookEventType], description: String, secret: String, createdBy: String,
                on connection: PostgresConnection) throws -> Webhook {
        let id = try connection.query("""
            INSERT INTO webhooks (url, events, description, secret, created_by)
            VALUES (\(url), \(events.map(\.rawValue)), \(description), \(secret), \(createdBy)) RETURNING id
            """).first!.decode(WebhookID.self, at: 0)
        return try webhook(id, on: connection)!
    }

    func webhook(_ id: WebhookID, on connection: PostgresConnection) throws -> Webhook? {
        try connection.query("SELECT \(fragment: Self.columns) FROM webhooks w WHERE w.id = \(id)::uuid").first.map(Self.webhook)
    }

    func list(on connection: PostgresConnection) throws -> [Webhook] {
        try connection.query("SELECT \(fragment: Self.columns) FROM webhooks w ORDER BY w.created_at, w.id").map(Self.webhook)
    }

    func delete(_ id: WebhookID, on connection: PostgresConnection) throws -> Bool {
        try connection.execute("DELETE FROM webhooks WHERE id = \(id)::uuid") > 0
    }

    static func webhook(_ row: PostgresRow) throws -> Webhook {
        Webhook(id: try row.decode(WebhookID.self, column: "id"), url: try row.decode(String.self, column: "url"),
                events: try row.decode([String].self, column: "events").compactMap(WebhookEventType.init(rawValue:)),
                description: try row.decode(String.self, column: "description"),
                createdBy: try row.decode(String.self, column: "created_by"), createdAt: try row.decode(Date.self, column: "created_at"),
                pending: try row.decode(Int.self, column: "pending"), dead: try row.decode(Int.self, column: "dead"))
    }

    // MARK: - Deliveries

    private static let deliveryColumns: PostgresQuery = """
        id, webhook_id, event_id, event_type, status, attempts,
        CASE WHEN status = \(constants: [WebhookDeliveryStatus.pending]) THEN next_attempt_at END AS next_attempt_at,
        last_attempt_at, response_status, last_error, created_at, delivered_at, body
        """

    /// Newest first, `limit` deliveries with ids below `before`, and the next cursor.
    func deliveries(of webhookID: WebhookID, before: Int64?, limit: Int, on connection: PostgresConnection) throws -> ([WebhookDelivery], Int64?) {
        var rows = try connection.query("""
            SELECT \(fragment: Self.deliveryColumns) FROM webhook_deliveries
            WHERE webhook_id = \(webhookID)::uuid AND id < \(before ?? Int64.max) ORDER BY id DESC LIMIT \(limit + 1)
            """).map(Self.delivery)
        let next = rows.count > limit ? rows[limit - 1].id : nil
        rows = Array(rows.prefix(limit))
        return (rows, next)
    }

    func delivery(_ id: Int64, of webhookID: WebhookID, on connection: PostgresConnection) throws -> WebhookDelivery? {
        try connection.query("""
            SELECT \(fragment: Self.deliveryColumns) FROM webhook_deliveries WHERE id = \(id) AND webhook_id = \(webhookID)::uuid
            """).first.map(Self.delivery)
    }

    /// A new delivery of the same event and body, at the end of the endpoint's queue.
    func redeliver(_ id: Int64, of webhookID: WebhookID, on connection: PostgresConnection) throws -> WebhookDelivery? {
        guard let copy = try connection.query("""
            INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, body)
            SELECT webhook_id, event_id, event_type, body FROM webhook_deliveries WHERE id = \(id) AND webhook_id = \(webhookID)::uuid
            RETURNING id
            """).first?.decode(Int64.self, at: 0) else { return nil }
        _ = try connection.query("SELECT pg_notify(\(WebhookOutbox.channel), '')")
        return try delivery(copy, of: webhookID, on: connection)
    }

    static func delivery(_ row: PostgresRow) throws -> WebhookDelivery {
        WebhookDelivery(id: try row.decode(Int64.self, column: "id"), webhookID: try row.decode(WebhookID.self, column: "webhook_id"),
                        eventID: try row.decode(WebhookEventID.self, column: "event_id"), eventType: try row.decode(String.self, column: "event_type"),
                        status: try row.decode(WebhookDeliveryStatus.self, column: "status"), attempts: try row.decode(Int.self, column: "attempts"),
                        nextAttemptAt: try row.decode(Date?.self, column: "next_attempt_at"),
                        lastAttemptAt: try row.decode(Date?.self, column: "last_attempt_at"),
                        responseStatus: try row.decode(Int?.self, column: "response_status"),
                        lastError: try row.decode(String?.self, column: "last_error"),
                        createdAt: try row.decode(Date.self, column: "created_at"), deliveredAt: try row.decode(Date?.self, column: "delivered_at"),
                        body: try row.decode(String.self, column: "body"))
    }

    // MARK: - Dispatching

    /// Leases the endpoint whose oldest waiting delivery has been due longest (one dispatcher per
    /// endpoint, so its events arrive in order) with up to `limit` of its deliveries in order.
    func claim(owner: String, lease: Duration, limit: Int, on connection: PostgresConnection) throws -> Claimed? {
        try connection.transaction { connection in
            guard let row = try connection.query("""
                WITH next AS (
                    SELECT w.id FROM webhooks w
                    CROSS JOIN LATERAL (SELECT d.next_attempt_at FROM webhook_deliveries d
                                        WHERE d.webhook_id = w.id AND d.status = \(constants: [WebhookDeliveryStatus.pending]) ORDER BY d.id LIMIT 1) head
                    WHERE head.next_attempt_at <= now() AND (w.lease_expires_at IS NULL OR w.lease_expires_at < now())
                    ORDER BY head.next_attempt_at LIMIT 1 FOR UPDATE OF w SKIP LOCKED
                )
                UPDATE webhooks w SET lease_owner = \(owner), lease_expires_at = now() + make_interval(secs => \(lease.seconds))
                FROM next WHERE w.id = next.id RETURNING w.id::text, w.url, w.secret
                """).first else { return nil }
            let (id, url, secret) = try row.decode((String, String, String).self, columns: "id", "url", "secret")
            let deliveries = try connection.query("""
                SELECT id, event_type, body, attempts FROM webhook_deliveries
                WHERE webhook_id = \(id)::uuid AND status = \(constants: [WebhookDeliveryStatus.pending]) ORDER BY id LIMIT \(limit)
                """).map { try $0.decode((Int64, String, String, Int).self, columns: "id", "event_type", "body", "attempts") }
            return Claimed(webhookID: id, url: url, secret: secret, deliveries: deliveries.map { ($0.0, $0.1, $0.2, $0.3) })
        }
    }

    /// Records one attempt: delivered, or tried again after `retryDelay` (nil: given up, dead);
    /// the endpoint's lease runs on while its owner still works through the queue.
    func record(_ id: Int64, webhookID: String, owner: String, delivered: Bool, responseStatus: Int?, error: String?,
                retryDelay: Duration?, lease: Duration, on connection: PostgresConnection) throws {
        let status: WebhookDeliveryStatus = delivered ? .delivered : retryDelay == nil ? .dead : .pending
        try connection.transaction { connection in
            _ = try connection.execute("""
                UPDATE webhook_deliveries SET status = \(status), attempts = attempts + 1, last_attempt_at = now(),
                    response_status = \(responseStatus), last_error = \(error),
                    delivered_at = CASE WHEN \(delivered) THEN now() END,
                    next_attempt_at = now() + make_interval(secs => \(retryDelay?.seconds ?? 0))
                WHERE id = \(id) AND status = \(constants: [WebhookDeliveryStatus.pending])
                """)
            _ = try connection.execute("""
                UPDATE webhooks SET lease_expires_at = now() + make_interval(secs => \(lease.seconds))
                WHERE id = \(webhookID)::uuid AND lease_owner = \(owner)
                """)
        }
    }

    func release(_ webhookID: String, owner: String, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            UPDATE webhooks SET lease_owner = NULL, lease_expires_at = NULL WHERE id = \(webhookID)::uuid AND lease_owner = \(owner)
            """)
    }

    /// Seconds until some endpoint's next delivery is due (0 when one is now), or nil when none waits.
    func secondsUntilNextDue(on connection: PostgresConnection) throws -> Double? {
        try connection.query("""
            SELECT extract(epoch FROM min(greatest(head.next_attempt_at, coalesce(w.lease_expires_at, head.next_attempt_at))) - now())::float8
            FROM webhooks w
            CROSS JOIN LATERAL (SELECT d.next_attempt_at FROM webhook_deliveries d
                                WHERE d.webhook_id = w.id AND d.status = \(constants: [WebhookDeliveryStatus.pending]) ORDER BY d.id LIMIT 1) head
            """).first?.decode(Double?.self, at: 0).map { max(0, $0) }
    }

    /// Drops delivered deliveries older than `days` (the log keeps what is pending or dead).
    func dropDelivered(olderThanDays days: Int, on connection: PostgresConnection) throws -> Int {
        try connection.execute("""
            DELETE FROM webhook_deliveries WHERE status = \(constants: [WebhookDeliveryStatus.delivered])
              AND delivered_at < now() - make_interval(days => \(days)::integer)
            """)
    }
}

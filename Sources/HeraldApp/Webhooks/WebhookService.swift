import HeraldCore
import HeraldCrypto
import HeraldJSON
import HeraldPostgres

/// Webhook endpoints (admins register them) and their delivery logs.
public struct WebhookService: Sendable {
    let database: Database
    let store = WebhookStore()
    let audit = AuditLog()

    public init(database: Database) { self.database = database }

    /// What an endpoint is registered with.
    public struct Registration: Sendable, Equatable {
        public var url: String
        public var events: [WebhookEventType]
        public var description: String
    }

    /// Reads `{"url", "events", "description"}`, every problem at once.
    public static func parse(_ json: JSON) -> Result<Registration, ValidationErrors> {
        var reader = JSONReader()
        guard let object = reader.object(json, at: "") else { return .failure(ValidationErrors(errors: reader.issues)) }
        // A webhook as read (with its id, counts and author) may be sent back: those are ignored.
        reader.rejectUnknown(object, known: ["url", "events", "description", "id", "created_by", "created_at", "deliveries_pending", "deliveries_dead"], at: "")
        let url = reader.string(object, "url", at: "", required: true) ?? ""
        if reader.member(object, "url")?.stringValue != nil, let problem = WebhookEndpointRules.problem(url: url) {
            reader.report("url", "invalid_value", "The URL \(problem).")
        }
        let events = reader.strings(object, "events", at: "")
        if reader.member(object, "events") == nil {
            reader.report("events", "required", "\"events\" is required: the event types this endpoint hears of")
        } else if let events, let problem = WebhookEndpointRules.problem(events: events) {
            reader.report("events", "invalid_value", "The list of events \(problem).")
        }
        let description = reader.string(object, "description", at: "") ?? ""
        if description.unicodeScalars.count > WebhookEndpointRules.maxDescriptionLength {
            reader.report("description", "too_long", "The description has at most \(WebhookEndpointRules.maxDescriptionLength) characters.",
                          limit: WebhookEndpointRules.maxDescriptionLength)
        }
        guard reader.issues.isEmpty else { return .failure(ValidationErrors(errors: reader.issues)) }
        let types = Set((events ?? []).compactMap(WebhookEventType.init(rawValue:)))
        return .success(Registration(url: url, events: WebhookEventType.allCases.filter(types.contains), description: description))
    }

    /// Registers an endpoint with a new signing secret, shown this once.
    public func create(_ json: JSON, by actor: Actor) throws -> CreatedWebhook {
        let registration = try DeviceService.checked(Self.parse(json), title: "The webhook is not valid")
        let secret = "whsec_" + SecureRandom.token()
        return try database.transaction { connection in
            let webhook = try store.insert(url: registration.url, events: registration.events, description: registration.description,
                                           secret: secret, createdBy: actor.name, on: connection)
            try audit.record(.webhookCreated, by: actor, object: .webhook(webhook.id),
                             details: ["url": .string(webhook.url), "events": .array(webhook.events.map { .string($0.rawValue) })],
                             on: connection)
            return CreatedWebhook(webhook: webhook, secret: secret)
        }
    }

    public func list() throws -> [Webhook] {
        try database.read { try store.list(on: $0) }
    }

    public func get(_ id: WebhookID) throws -> Webhook {
        guard let webhook = try database.read({ try store.webhook(id, on: $0) }) else {
            throw AppError.notFound(.webhook(id.description))
        }
        return webhook
    }

    /// Deletes the endpoint and its log; nothing more is posted to it.
    public func delete(_ id: WebhookID, by actor: Actor) throws {
        try database.transaction { connection in
            guard let webhook = try store.webhook(id, on: connection), try store.delete(id, on: connection) else {
                throw AppError.notFound(.webhook(id.description))
            }
            try audit.record(.webhookDeleted, by: actor, object: .webhook(id), details: ["url": .string(webhook.url)], on: connection)
        }
    }

    /// The endpoint's deliveries, newest first, `limit` after the cursor `before`.
    public func deliveries(of id: WebhookID, before: Int64?, limit: Int) throws -> (deliveries: [WebhookDelivery], next: Int64?) {
        _ = try get(id)
        return try database.read { try store.deliveries(of: id, before: before, limit: limit, on: $0) }
    }

    /// Posts a delivery's event again, as a new delivery at the end of the endpoint's queue.
    public func redeliver(_ deliveryID: Int64, of id: WebhookID, by actor: Actor) throws -> WebhookDelivery {
        return try database.transaction { connection in
            guard let copy = try store.redeliver(deliveryID, of: id, on: connection) else {
                throw AppError.notFound(.webhookDelivery(String(deliveryID)))
            }
            try audit.record(.webhookRedelivered, by: actor, object: .webhook(id),
                             details: ["delivery": .number(Double(deliveryID)), "new_delivery": .number(Double(copy.id)),
                                       "event": .string(copy.eventType)], on: connection)
            return copy
        }
    }
}

import FCMMessage
import Foundation
import HeraldCore
import HeraldCrypto
import HeraldJSON
import HeraldPostgres

/// One-call sends for internal tools: one message to a few devices now, through the same
/// validation, rendering, shared quota, retries and pruning as a campaign, as a run of its own
/// (of the template campaign, or of a campaign the inline message becomes), reported like any run.
public struct SendService: Sendable {
    let database: Database
    let buckets: AudienceBuckets
    let approvalsRequired: Bool
    let campaigns = CampaignStore()
    let devices = DeviceStore()
    let idempotency = IdempotencyStore()
    let audit = AuditLog()

    public init(database: Database, buckets: AudienceBuckets, approvalsRequired: Bool) {
        self.database = database
        self.buckets = buckets
        self.approvalsRequired = approvalsRequired
    }

    /// Sends once per `Idempotency-Key` (the caller's own keys): a retry with the same key and
    /// body gets the first answer again (what `answer` made of the accepted send, as the face made
    /// it) and sends nothing; the same key with another body is refused.
    public func send(_ json: JSON, idempotencyKey key: String, body: [UInt8], by actor: Actor, now: Date,
                     answer: (AcceptedSend) -> IdempotentAnswer) throws -> IdempotentAnswer {
        let request = try DeviceService.checked(SendRequest.parse(json), title: "The send is not valid")
        let scope = "sends:" + (actor.apiKeyID?.description ?? actor.userID?.description ?? actor.name)
        return try database.read { connection in
            if let remembered = try idempotency.find(scope: scope, key: key, on: connection) {
                return try replay(remembered, body: body)
            }
            do {
                return try connection.transaction { connection in
                    let first = answer(try make(request, by: actor, now: now, on: connection))
                    try idempotency.remember(scope: scope, key: key, requestSHA256: IdempotencyStore.fingerprint(body), answer: first, on: connection)
                    return first
                }
            } catch let error as PostgresError where error.code == .uniqueViolation {
                guard let remembered = try idempotency.find(scope: scope, key: key, on: connection) else { throw error }
                return try replay(remembered, body: body)
            }
        }
    }

    func replay(_ remembered: IdempotencyStore.Remembered, body: [UInt8]) throws(AppError) -> IdempotentAnswer {
        guard remembered.isSameRequest(body) else {
            throw .refused(code: "idempotency_key_reused", title: "Idempotency-Key already used",
                           detail: "This Idempotency-Key was used for a different request body; use a new key for a new request.")
        }
        return remembered.answer
    }

    /// The run, its deliveries and what became of each recipient, in the caller's transaction.
    private func make(_ request: SendRequest, by actor: Actor, now: Date, on connection: PostgresConnection) throws -> AcceptedSend {
        var (record, spec, variant) = try template(request, by: actor, on: connection)
        let campaignID = record.id
        // The labelling the send goes with, decided against the day's budget as a run's is, and counted in it.
        spec.options.labels = try LabelDayStore().resolve(spec, campaignID: campaignID.description, on: connection)
        guard var planner = variant.map({ DevicePlanner(only: $0, of: spec.forSending, campaignID: campaignID.description, sendTime: now) })
                ?? DevicePlanner(campaign: spec.forSending, campaignID: campaignID.description, sendTime: now) else {
            throw AppError.invalidField("variant", "the campaign has no variant \"\(variant ?? "")\"; it has \(spec.effectiveVariants.map(\.key).joined(separator: ", "))",
                                        code: "unknown_variant", title: "The send is not valid")
        }
        // A marketing send skips the control group, as a campaign does (the caps apply when it is claimed).
        planner.controlGroup = try ContactPolicyStore().read(on: connection).controlGroup
        // Each recipient as the registry knows it (language, properties), its own variables over
        // them; a token the device moved from to its FID reaches it by the FID, as a campaign does.
        var recipients: [(SendRequest.Recipient, Device, DeviceRequest?)] = []
        for recipient in request.recipients {
            var device = try devices.named(by: recipient.token, on: connection)?.device ?? Device(token: recipient.token, kind: recipient.kind, platform: .android)
            if device.token == recipient.token { device.kind = recipient.kind }
            for (name, value) in recipient.variables { device.properties[name] = value }
            recipients.append((recipient, device, planner.request(for: device)))
        }
        // The run and a request per recipient, written by the engine's one writer; nothing to
        // send (all in the holdout, or each over FCM's limit) ends the run at once.
        let runID = try RunWriter().startOneCall(campaignID: campaignID, version: record.version, content: spec.toJSON(),
                                                 requests: recipients.compactMap { _, device, planned in planned.map { ($0, device.kind) } },
                                                 madeBy: actor.apiKeyID, on: connection)
        try audit.record(.sendMade, by: actor, object: .campaign(record.id), details: [
            "run": .string(runID.description), "recipients": .number(Double(request.recipients.count)), "variant": variant.map(JSON.string) ?? .null,
        ], on: connection)
        return AcceptedSend(runID: runID, campaignID: record.id, recipients: recipients.map { recipient, device, planned in
            let outcome: AcceptedSend.Outcome = if let planned {
                planned.failure.map { .failed($0) } ?? .pending
            } else if !planner.reaches(device) {
                // Not a skip of the campaign's rules: nothing could be sent to it at all.
                .failed(LiveActivity.unreachable)
            } else {
                .skipped(planner.skip(of: device) ?? .holdout)
            }
            return AcceptedSend.Recipient(token: recipient.token, kind: recipient.kind, variant: planned?.variantKey, outcome: outcome)
        })
    }

    /// The campaign the run belongs to, the content it sends, and the variant asked for.
    private func template(_ request: SendRequest, by actor: Actor, on connection: PostgresConnection) throws -> (CampaignRecord, CampaignSpec, String?) {
        switch request.template {
        case .campaign(let id, let variant):
            // Locked: the sends of one template get their runs' occurrences one after another.
            guard let record = try campaigns.find(id: id, on: connection, forUpdate: true) else { throw AppError.notFound(.campaign(id.description)) }
            var template = record
            if approvalsRequired {
                // With approvals on, a template sends only what a publisher approved.
                guard let approved = try ApprovalStore().approvedContent(id, on: connection) else {
                    throw AppError.conflict(code: "approval_required", title: "The campaign is not approved",
                                            detail: "With approvals on, a campaign is sent as a template only once a publisher approved a version of it.")
                }
                template.content = approved
            }
            return (record, try template.spec(), variant)
        case .message(let message):
            guard case .object(var object) = message else { throw AppError.invalidField("message", "a message is a JSON object") }
            // A one-call send goes now, to its own recipients, as it is: no audience, schedule or test of its own.
            let allowed: Set<String> = ["name", "notification", "data", "options", "variants", "delivery"]
            if let other = object.keys.first(where: { !allowed.contains($0) }) {
                throw AppError.invalidField("message.\(other)", "a one-call message has only \(allowed.sorted().joined(separator: ", ")): it goes now, to \"to\"",
                                            code: "unknown_field", title: "The message is not valid")
            }
            if object["name"] == nil { object["name"] = "One-call send" }
            // Every inline send is a campaign of its own: a label each would spend FCM's 100 a day
            // on receipts. They share one, unless the message names its own.
            if case .object(var options) = object["options"] ?? .object([:]), options["analytics_label"] == nil {
                options["analytics_label"] = .string(Self.inlineLabel)
                object["options"] = .object(options)
            }
            // Of the delivery controls, a one-call send has its category and whether it is transactional.
            if case .object(let delivery)? = object["delivery"], let other = delivery.keys.first(where: { !["category", "transactional"].contains($0) }) {
                throw AppError.invalidField("message.delivery.\(other)", "a one-call message's delivery has only category and transactional: it goes now",
                                            code: "unknown_field", title: "The message is not valid")
            }
            // Validated as a campaign to these devices is (the audience is the send's own).
            object["tokens"] = .array(request.recipients.map { .string($0.token) })
            let spec: CampaignSpec
            switch CampaignSpec.parse(.object(object)) {
            case .success(let parsed): spec = parsed
            case .failure(let errors):
                throw AppError.invalid(ValidationErrors(errors: errors.errors.map { error in
                    var moved = error
                    moved.path = error.path == "tokens" || error.path.hasPrefix("tokens[") ? "to" : JSONReader.path("message", error.path)
                    return moved
                }), title: "The message is not valid")
            }
            try CampaignService.refuseTransactional(spec, was: nil, by: actor, at: "message.delivery.transactional")
            if approvalsRequired { try refuseUnapprovedInline(spec, by: actor, on: connection) }
            var record = try campaigns.insert(spec, author: actor.name, by: actor.attribution, on: connection)
            _ = try connection.execute("""
                UPDATE campaigns SET one_call = true, status = \(constants: [CampaignStatus.sending]) WHERE id = \(record.id.description)::uuid
                """)
            record.status = .sending
            return (record, spec, nil)
        }
    }

    /// With approvals on, an inline message reaches devices that no second person approved: it is
    /// sent only from an API key an admin exempted (`inline_sends`), and only when transactional
    /// (a receipt, a security code); anything else goes through approval as a campaign, sent here
    /// as a template.
    private func refuseUnapprovedInline(_ spec: CampaignSpec, by actor: Actor, on connection: PostgresConnection) throws {
        let exempted = try actor.apiKeyID.map { try APIKeyStore().allowsInlineSends($0, on: connection) } ?? false
        guard !exempted || !spec.delivery.transactional else { return }
        let rule = "With approvals on (HERALD_APPROVALS), nothing reaches a device that a second person did not approve: "
        throw AppError.conflict(code: "approval_required", title: "An inline message needs an approval exemption", detail: exempted
            ? rule + "this key may send inline messages only when they are transactional (\"delivery\": {\"transactional\": true}); "
                + "send a marketing message as an approved campaign (\"campaign\": its id)."
            : rule + "an inline message is sent only from an API key an admin allowed to send inline transactional messages "
                + "(\"inline_sends\": true when the key is created); send an approved campaign as the template (\"campaign\": its id) instead.")
    }

    /// The analytics label inline one-call messages share unless they name their own.
    static let inlineLabel = "herald-one-call"

    /// A send as it stands: its run and each request's outcome (holdout recipients have none).
    /// A key of the `sends` scope reads only the sends it made: another's is not found.
    public func get(_ runID: RunID, as viewer: Viewer?) throws -> SendProgress {
        var maker: APIKeyID?
        if viewer?.scope == .sends {
            guard let key = viewer?.apiKeyID else { throw AppError.notFound(.send(runID.description)) }
            maker = key
        }
        return try database.read { connection in
            guard let progress = try ProgressStore().send(runID, madeBy: maker, on: connection) else { throw AppError.notFound(.send(runID.description)) }
            return progress
        }
    }
}

import Foundation
import HeraldCore
import HeraldFCM
import HeraldHTTP
import HeraldJSON
import HeraldPostgres

/// What a campaign becomes on the wire: the planned v1 requests (preview), FCM's opinion of them
/// (validate, a dry run) and a real send to a few test devices (test), as the console offers.
struct SendingAPI: Sendable {
    let pool: PostgresPool
    let log: Log
    let sender: FCMSender?
    let buckets: AudienceBuckets
    let campaigns = CampaignStore()

    static let maximumTestTokens = TestSend.maximumTokens

    func register(on router: inout Router, access: AccessControl) {
        router.add(.get, "/api/v1/campaigns/{id}/preview", access.api(.viewer) { request, _ in try preview(request) })
        router.add(.post, "/api/v1/campaigns/{id}/validate", access.api(.editor) { request, _ in try validate(request) })
        router.add(.post, "/api/v1/campaigns/{id}/test", access.api(.editor) { request, _ in try test(request) })
    }

    func preview(_ request: HTTPRequest) throws -> APIResponse {
        let (record, plan) = try planned(request)
        let requests: [JSON] = plan.requests.map { planned in
            ["variant": .string(planned.variantKey), "target": Self.json(planned.target),
             "payload_bytes": .number(Double(planned.message.payloadSize)),
             "body": ["message": planned.message.json(), "validate_only": false]]
        }
        return APIResponse(status: 200, body: [
            "campaign_id": .string(record.id), "version": .number(Double(record.version)),
            "requests": .array(requests), "warnings": .array(plan.warnings.map { .string($0) }),
        ])
    }

    func validate(_ request: HTTPRequest) throws -> APIResponse {
        let sender = try configuredSender()
        let (record, plan) = try planned(request)
        let outcomes = sender.send(batch: plan.requests.map { $0.message.json() }, validateOnly: true, concurrency: 8)
        let results: [JSON] = zip(plan.requests, outcomes).map { planned, outcome in
            var result = Self.json(outcome)
            result["variant"] = .string(planned.variantKey)
            result["target"] = Self.json(planned.target)
            return .object(result)
        }
        let valid = outcomes.allSatisfy { $0.error == nil }
        return APIResponse(status: 200, body: ["campaign_id": .string(record.id), "valid": .bool(valid), "results": .array(results)])
    }

    /// Sends the chosen variant to up to 20 registration tokens, now, with a few quick retries.
    func test(_ request: HTTPRequest) throws -> APIResponse {
        let body = try request.jsonBody()
        var errors: [FieldError] = []
        let tokens = body["tokens"]?.arrayValue ?? []
        if body["tokens"]?.arrayValue == nil {
            errors.append(FieldError(path: "tokens", code: "required", message: "tokens must be a list of 1 to \(Self.maximumTestTokens) registration tokens"))
        } else if tokens.isEmpty || tokens.count > Self.maximumTestTokens {
            errors.append(FieldError(path: "tokens", code: "out_of_range",
                                     message: "send to 1 to \(Self.maximumTestTokens) registration tokens at a time", limit: Self.maximumTestTokens))
        }
        for (index, token) in tokens.enumerated() where (token.stringValue ?? "").isEmpty {
            errors.append(FieldError(path: "tokens[\(index)]", code: "wrong_type", message: "a registration token is a non-empty string"))
        }
        for key in body.objectValue?.keys ?? [] where key != "tokens" && key != "variant" {
            errors.append(FieldError(path: key, code: "unknown_field", message: "unknown field \"\(key)\"; known: tokens, variant"))
        }
        if let variant = body["variant"], variant.stringValue == nil {
            errors.append(FieldError(path: "variant", code: "wrong_type", message: "variant must be a variant key such as \"A\""))
        }
        if !errors.isEmpty { throw Problem.validation(ValidationErrors(errors: errors), title: "The test message request is not valid") }

        let sender = try configuredSender()
        let record = try existing(request)
        let key = body["variant"]?.stringValue ?? record.spec.effectiveVariants[0].key
        guard let variant = record.spec.variant(key) else {
            throw Problem.validation(ValidationErrors(errors: [FieldError(
                path: "variant", code: "unknown_variant",
                message: "campaign has no variant \"\(key)\"; it has \(record.spec.effectiveVariants.map(\.key).joined(separator: ", "))")]),
                title: "The test message request is not valid")
        }
        let sent = TestSend.send(record, variant: variant, tokens: tokens.compactMap(\.stringValue), sender: sender)
        let results: [JSON] = sent.map { sent in
            var result = Self.json(sent.outcome)
            result["token"] = .string(sent.token)
            result["attempts"] = .number(Double(sent.attempts))
            return .object(result)
        }
        return APIResponse(status: 200, body: ["campaign_id": .string(record.id), "variant": .string(key), "results": .array(results)])
    }

    // MARK: - Helpers

    func planned(_ request: HTTPRequest) throws -> (CampaignRecord, FanOutPlan) {
        let record = try existing(request)
        return (record, FanOutPlanner.plan(campaign: record.spec, buckets: buckets, campaignID: record.id, sendTime: Date()))
    }

    func existing(_ request: HTTPRequest) throws -> CampaignRecord {
        let id = request.parameters["id"] ?? ""
        guard let record = try pool.withConnection({ try campaigns.find(id: id, on: $0) }) else {
            throw Problem.notFound("Campaign \(id)")
        }
        return record
    }

    func configuredSender() throws(Problem) -> FCMSender {
        guard let sender else {
            throw Problem(status: 503, code: "sending_not_configured", title: "Sending is not configured",
                          detail: "Set HERALD_SERVICE_ACCOUNT_KEY to a Firebase service-account key (or run the FCM emulator) to send.")
        }
        return sender
    }

    static func json(_ target: Target) -> JSON {
        switch target {
        case .topic(let topic): ["topic": .string(topic)]
        case .condition(let condition): ["condition": .string(condition)]
        case .token(let token): ["token": .string(token)]
        }
    }

    static func json(_ outcome: SendOutcome) -> JSONObject {
        switch outcome {
        case .sent(let name):
            return ["status": "sent", "name": .string(name)]
        case .failed(let error):
            var failure: JSONObject = ["code": .string(error.code.rawValue), "message": .string(error.message)]
            if let status = error.httpStatus { failure["http_status"] = .number(Double(status)) }
            return ["status": "failed", "error": .object(failure)]
        }
    }
}

import FCMMessage
import Foundation
import HeraldApp
import HeraldCore
import HeraldJSON
import HeraldSync

/// What a campaign becomes on the wire: the planned v1 requests (preview), FCM's opinion of them
/// (validate, a dry run) and a real send to a few test devices (test), as the console offers.
struct SendingAPI: Sendable {
    let campaigns: CampaignService

    func preview(_ context: RequestContext) throws -> APIResponse {
        let (record, plan) = try campaigns.preview(try context.campaignID(), now: Date())
        let requests: [JSON] = plan.requests.map { planned in
            ["variant": .string(planned.variantKey), "target": planned.target.json,
             "payload_bytes": .number(Double(planned.message.payloadSize)),
             "body": ["message": planned.message.json(), "validate_only": false]]
        }
        return APIResponse(status: 200, body: [
            "campaign_id": .string(record.id.description), "version": .number(Double(record.version)),
            "requests": .array(requests), "warnings": .array(plan.warnings.map { .string($0) }),
        ])
    }

    func validate(_ context: RequestContext) throws -> APIResponse {
        let (record, validated) = try campaigns.validate(try context.campaignID(), now: Date())
        // A dry run sends nothing: each request is valid or invalid (with FCM's error), never sent.
        let results: [JSON] = validated.map { request in
            var result: JSONObject = ["result": .string((request.outcome.error == nil ? DryRunResult.valid : .invalid).rawValue)]
            if let error = Self.json(request.outcome)["error"] { result["error"] = error }
            result["variant"] = .string(request.variantKey)
            result["target"] = request.target.json
            return .object(result)
        }
        let valid = validated.allSatisfy { $0.outcome.error == nil }
        return APIResponse(status: 200, body: ["campaign_id": .string(record.id.description), "valid": .bool(valid), "results": .array(results)])
    }

    /// Sends the chosen variant to up to 20 devices, now, with a few quick retries: registration
    /// tokens in `tokens`, Firebase installation IDs in `fids` (sent with the `fid` target).
    func test(_ context: RequestContext) throws -> APIResponse {
        let body = try context.jsonBody()
        var errors: [FieldError] = []
        func list(_ name: String, _ what: String) -> [JSON] {
            let items = body[name]?.arrayValue ?? []
            if let value = body[name], value.arrayValue == nil {
                errors.append(FieldError(path: name, code: "wrong_type", message: "\(name) must be a list of \(what)"))
            }
            for (index, item) in items.enumerated() where (item.stringValue ?? "").isEmpty {
                errors.append(FieldError(path: "\(name)[\(index)]", code: "wrong_type", message: "a \(what.dropLast()) is a non-empty string"))
            }
            return items
        }
        let tokens = list("tokens", "registration tokens"), fids = list("fids", "installation IDs")
        if body["tokens"]?.arrayValue == nil && body["fids"]?.arrayValue == nil {
            errors.append(FieldError(path: "tokens", code: "required",
                                     message: "tokens must be a list of 1 to \(CampaignLimits.testTokens) registration tokens (or fids, of installation IDs)"))
        } else if let error = TestSend.tokenCountError(tokens.count + fids.count, path: body["tokens"] == nil ? "fids" : "tokens") {
            // Checked here too so that one answer lists it beside every other problem of the body.
            errors.append(error)
        }
        for key in body.objectValue?.keys ?? [] where !["tokens", "fids", "variant"].contains(key) {
            errors.append(FieldError(path: key, code: "unknown_field", message: "unknown field \"\(key)\"; known: tokens, fids, variant"))
        }
        if let variant = body["variant"], variant.stringValue == nil {
            errors.append(FieldError(path: "variant", code: "wrong_type", message: "variant must be a variant key such as \"A\""))
        }
        if !errors.isEmpty { throw AppError.invalid(ValidationErrors(errors: errors), title: "The test message request is not valid") }

        let (record, variant, sent) = try campaigns.testSend(try context.campaignID(), variantKey: body["variant"]?.stringValue,
                                                             tokens: tokens.compactMap(\.stringValue), fids: fids.compactMap(\.stringValue),
                                                             by: context.actor, now: Date())
        let results: [JSON] = sent.map { sent in
            var result = Self.json(sent.outcome)
            // Each result names its device as the request did: by `token`, or by `fid`.
            result[sent.kind == .fid ? "fid" : "token"] = .string(sent.token)
            result["attempts"] = .number(Double(sent.attempts))
            return .object(result)
        }
        return APIResponse(status: 200, body: ["campaign_id": .string(record.id.description), "variant": .string(variant.key), "results": .array(results)])
    }

    static func json(_ outcome: SendOutcome) -> JSONObject {
        switch outcome {
        case .sent(let name):
            return ["status": .string(DeliveryStatus.sent.rawValue), "name": .string(name)]
        case .failed(let error):
            var failure: JSONObject = ["code": .string(error.code.rawValue), "message": .string(error.message)]
            if let status = error.httpStatus { failure["http_status"] = .number(Double(status)) }
            if let retryAfter = error.retryAfter { failure["retry_after_seconds"] = .number(retryAfter.seconds.rounded(.up)) }
            return ["status": .string(DeliveryStatus.failed.rawValue), "error": .object(failure)]
        }
    }
}

/// What FCM said of one request of a dry run (`validate_only`).
enum DryRunResult: String {
    case valid, invalid
}

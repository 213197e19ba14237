import Foundation
import HeraldApp
import HeraldCore
import HeraldJSON

/// `/api/v1/sends`: one message to a few devices now, for internal tools ("your order shipped"),
/// once per `Idempotency-Key`; then its outcome per recipient.
struct SendsAPI: Sendable {
    let sends: SendService

    func send(_ context: RequestContext) throws -> APIResponse {
        guard let key = try context.idempotencyKey() else {
            throw Problem.badRequest(code: "idempotency_key_required",
                                     "A send needs an Idempotency-Key header (such as a UUID): a retry with it after a lost answer sends nothing twice.")
        }
        let answer = try sends.send(try context.jsonBody(), idempotencyKey: key, body: context.request.body, by: context.actor, now: Date()) {
            IdempotentAnswer(status: 202, body: $0.json)
        }
        var headers: [(String, String)] = []
        if let id = answer.body["id"]?.stringValue { headers.append(("Location", "/api/v1/sends/\(id)")) }
        return APIResponse(status: answer.status, body: answer.body, headers: headers)
    }

    func get(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: try sends.get(try context.sendID(), as: context.viewer).json)
    }
}

extension AcceptedSend {
    /// The answer to a send: its run (`id`), its campaign, and each recipient's variant and status.
    var json: JSON {
        ["id": .string(runID.description), "campaign_id": .string(campaignID.description), "status": .string(RunStatus.sending.rawValue),
         "recipients": .array(recipients.map { recipient in
             var object: JSONObject = [recipient.kind == .fid ? "fid" : "token": .string(recipient.token)]
             object["variant"] = recipient.variant.map(JSON.string) ?? .null
             switch recipient.outcome {
             case .pending: object["status"] = .string(DeliveryStatus.pending.rawValue); object["error"] = .null
             case .failed(let reason): object["status"] = .string(DeliveryStatus.failed.rawValue); object["error"] = .string(reason)
             case .skipped(let skip): object["status"] = .string(skip.rawValue); object["error"] = .null
             }
             return .object(object)
         })]
    }
}

extension SendProgress {
    /// A send as it stands: each request's target, variant, status, attempts and FCM's answer.
    var json: JSON {
        ["id": .string(id.description), "campaign_id": .string(campaignID.description), "status": .string(status.rawValue),
         "planned": .number(Double(planned)),
         "recipients": .array(requests.map { request in
             var object = request.target.json.objectValue ?? [:]
             object["variant"] = .string(request.variant)
             object["status"] = .string(request.status.rawValue)
             object["attempts"] = .number(Double(request.attempts))
             object["error_code"] = request.errorCode.map(JSON.string) ?? .null
             object["error"] = request.error.map(JSON.string) ?? .null
             object["message_name"] = request.messageName.map(JSON.string) ?? .null
             return .object(object)
         })]
    }
}

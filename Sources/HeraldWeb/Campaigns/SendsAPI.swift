import Foundation
import HeraldApp

/// `/api/v1/sends`: one message to a few devices now, for internal tools ("your order shipped"),
/// once per `Idempotency-Key`; then its outcome per recipient.
struct SendsAPI: Sendable {
    let sends: SendService

    func send(_ context: RequestContext) throws -> APIResponse {
        guard let key = try context.idempotencyKey() else {
            throw Problem.badRequest(code: "idempotency_key_required",
                                     "A send needs an Idempotency-Key header (such as a UUID): a retry with it after a lost answer sends nothing twice.")
        }
        let (status, response) = try sends.send(try context.jsonBody(), idempotencyKey: key, body: context.request.body, by: context.actor, now: Date())
        var headers: [(String, String)] = []
        if let id = response["id"]?.stringValue { headers.append(("Location", "/api/v1/sends/\(id)")) }
        return APIResponse(status: status, body: response, headers: headers)
    }

    func get(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: try sends.get(context.parameter("id")))
    }
}

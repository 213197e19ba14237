import Foundation
import HeraldApp
import HeraldJSON

/// `POST /api/v1/campaigns/{id}/send-winner` with `{"variant": "B"}`: the A/B test's winner to the
/// rest of the audience (the holdout's buckets), once the test has been sent.
struct WinnerAPI: Sendable {
    let campaigns: CampaignService

    func send(_ context: RequestContext) throws -> APIResponse {
        let body = try context.jsonBody()
        guard let object = body.objectValue, object.count == 1, let variant = object["variant"]?.stringValue, !variant.isEmpty else {
            throw AppError.invalidField("variant", "send {\"variant\": \"<key>\"}, the key of the variant to send to the rest, and nothing else",
                                        code: "invalid_value", title: "The request is not valid")
        }
        return CampaignsAPI.answer(try campaigns.sendWinner(try context.campaignID(), variantKey: variant, by: context.actor, now: Date()))
    }
}

import Foundation
import HeraldCore
import HeraldFCM

/// A test message: one variant of a campaign sent now to a few registration tokens, with a few
/// quick retries. Shared by `POST /api/v1/campaigns/{id}/test` and the review page's form.
enum TestSend {
    static let maximumTokens = 20

    struct Result: Sendable {
        var token: String
        var outcome: SendOutcome
        var attempts: Int
    }

    static func send(_ record: CampaignRecord, variant: Variant, tokens: [String], sender: FCMSender) -> [Result] {
        let quick = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(200), maxDelay: .seconds(2), quotaExceededMinimumDelay: .seconds(2))
        let messages = tokens.map { token in
            Renderer.render(campaign: record.spec, variant: variant, target: .token(token), campaignID: record.id, sendTime: Date())
        }
        // The batch takes the bare v1 `message`; the sender wraps it in the send body.
        let sent = sender.sendWithRetries(batch: messages.map { $0.json().serialized() }, concurrency: 8, policy: quick)
        return zip(tokens, sent).map { Result(token: $0, outcome: $1.outcome, attempts: $1.attempts.count) }
    }
}

import FCMMessage
import HeraldSync
import Foundation
import HeraldCore
import HeraldFCM

/// A test message: one variant of a campaign sent now to a few registration tokens, with a few
/// quick retries (`CampaignService.testSend`, for the API and the review page alike).
public enum TestSend {
    public struct Result: Sendable {
        public var token: String
        public var outcome: SendOutcome
        public var attempts: Int
    }

    /// The rule on how many tokens one test send may reach, or nil when `count` keeps it.
    public static func tokenCountError(_ count: Int) -> FieldError? {
        guard !(1...CampaignLimits.testTokens).contains(count) else { return nil }
        return FieldError(path: "tokens", code: "out_of_range",
                          message: "send to 1 to \(CampaignLimits.testTokens) registration tokens at a time (you gave \(count))",
                          limit: CampaignLimits.testTokens)
    }

    /// Every typed token that is not shaped like an FCM registration token, by its line (1-based,
    /// as the review page's one-token-per-line field and the API's list order count them).
    public static func tokenErrors(_ tokens: [String]) -> [FieldError] {
        RegistrationToken.errors(tokens, at: "tokens")
    }

    /// The analytics label of every test message of a campaign: its own, so that test sends never
    /// count in the campaign's delivery reports.
    public static func analyticsLabel(campaignID: String) -> String { "herald-test-\(campaignID.prefix(8))" }

    static func send(_ campaignID: String, _ spec: CampaignSpec, variant: Variant, tokens: [String], sender: FCMSender, now: Date) -> [Result] {
        // A person waits for this answer: a retry FCM asks to come later than 2 s is not waited
        // for; the error and its retry time are the answer.
        let quick = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(200), maxDelay: .seconds(2), quotaExceededMinimumDelay: .seconds(2),
                                longestWait: .seconds(2))
        let messages = tokens.map { token in
            var message = Renderer.render(campaign: spec, variant: variant, target: .token(token), campaignID: campaignID, sendTime: now)
            message.fcmOptions = Message.FCMOptions(analyticsLabel: analyticsLabel(campaignID: campaignID))
            return message
        }
        // The batch takes the bare v1 `message`; the sender wraps it in the send body.
        let sent = sender.sendWithRetries(batch: messages.map { $0.json().serialized() }, concurrency: 8, policy: quick)
        return zip(tokens, sent).map { Result(token: $0, outcome: $1.outcome, attempts: $1.attempts.count) }
    }
}

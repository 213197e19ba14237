import FCMMessage
import HeraldSync
import Foundation
import HeraldCore
import HeraldFCM

/// A test message: one variant of a campaign sent now to a few registration tokens or Firebase
/// installation IDs, with a few quick retries (`CampaignService.testSend`, for the API and the
/// review page alike).
public enum TestSend {
    public struct Result: Sendable {
        /// The registration token, or the installation ID when `kind` is `.fid`.
        public var token: String
        public var kind: DeviceKind = .token
        public var outcome: SendOutcome
        public var attempts: Int

        public init(token: String, kind: DeviceKind = .token, outcome: SendOutcome, attempts: Int) {
            self.token = token
            self.kind = kind
            self.outcome = outcome
            self.attempts = attempts
        }
    }

    /// The rule on how many devices one test send may reach (tokens and FIDs together), or nil
    /// when `count` keeps it; `path` names the list the caller gave.
    public static func tokenCountError(_ count: Int, path: String = "tokens") -> FieldError? {
        guard !(1...CampaignLimits.testTokens).contains(count) else { return nil }
        return FieldError(path: path, code: "out_of_range",
                          message: "send to 1 to \(CampaignLimits.testTokens) registration tokens at a time (you gave \(count))",
                          limit: CampaignLimits.testTokens)
    }

    /// Every typed token that is not shaped like an FCM registration token, by its line (1-based,
    /// as the review page's one-token-per-line field and the API's list order count them).
    static func tokenErrors(_ tokens: [String]) -> [FieldError] {
        RegistrationToken.errors(tokens, at: "tokens")
    }

    /// Every FID that is not shaped like a Firebase installation ID, at `fids[index]`.
    static func fidErrors(_ fids: [String]) -> [FieldError] {
        fids.enumerated().compactMap { index, fid in
            Device.identifierProblem(fid, kind: .fid, at: "fids[\(index)]")
        }
    }

    /// The analytics label of every test message of a campaign: its own, so that test sends never
    /// count in the campaign's delivery reports.
    public static func analyticsLabel(campaignID: String) -> String { "herald-test-\(campaignID.prefix(8))" }

    /// Sends to `devices`, each named by the target its kind says (`token` or `fid`), with
    /// `label` (the test label the day's budget admitted, or none: never the campaign's); a Live
    /// Activity to each device's activity token in `liveActivityTokens`.
    static func send(_ campaignID: String, _ spec: CampaignSpec, variant: Variant, devices: [(id: String, kind: DeviceKind)], label: String?,
                     sender: FCMSender, now: Date, liveActivityTokens: [String: String] = [:]) -> [Result] {
        // A person waits for this answer: a retry FCM asks to come later than 2 s is not waited
        // for; the error and its retry time are the answer.
        let quick = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(200), maxDelay: .seconds(2), quotaExceededMinimumDelay: .seconds(2),
                                longestWait: .seconds(2))
        let messages = devices.map { device in
            let target = Device(token: device.id, kind: device.kind, platform: .android).target
            var message = Renderer.render(campaign: spec, variant: variant, target: target, campaignID: campaignID, sendTime: now,
                                          liveActivityToken: liveActivityTokens[device.id])
            message.fcmOptions = label.map { Message.FCMOptions(analyticsLabel: $0) }
            return message
        }
        // The batch takes the bare v1 `message`; the sender wraps it in the send body.
        let sent = sender.sendWithRetries(batch: messages.map { $0.json().serialized() }, concurrency: 8, policy: quick)
        return zip(devices, sent).map { Result(token: $0.id, kind: $0.kind, outcome: $1.outcome, attempts: $1.attempts.count) }
    }
}

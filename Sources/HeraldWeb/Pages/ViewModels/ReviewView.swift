import Foundation
import HeraldApp
import HeraldCore
import HeraldJSON

/// The review step: each variant as a device shows it, the exact v1 requests the scheduler will
/// send, the actions the viewer may take, and the results of a test send.
struct ReviewView: PageView {
    struct Variant: Sendable {
        let key: String
        let weight: Int
        let characters: Int
        let preview: NotificationPreview
        /// A Live Activity campaign's `aps`, as the device's activity receives it (pretty JSON), shown instead of the notification.
        let aps: String?
        /// "· weight 50 · 120 / 1000 characters".
        let summary: String

        init(key: String, weight: Int, characters: Int, preview: NotificationPreview, aps: String? = nil, words: Localized) {
            self.key = key
            self.weight = weight
            self.characters = characters
            self.preview = preview
            self.aps = aps
            summary = words.text("review.variant_summary", words.number(weight), words.number(characters),
                                     words.number(CampaignLimits.notificationCharacters))
        }
    }

    /// One planned FCM request, its body as the scheduler will post it.
    struct Request: Sendable {
        let number: Int
        /// The first one is shown open.
        let first: Bool
        let variant: String
        let bytes: Int
        let body: String
        /// "Request 1 · variant A · 312 bytes of payload".
        let summary: String

        init(number: Int, first: Bool, variant: String, bytes: Int, body: String, words: Localized) {
            self.number = number
            self.first = first
            self.variant = variant
            self.bytes = bytes
            self.body = body
            summary = words.text("review.request_summary", words.number(number), variant, words.number(bytes))
        }
    }

    /// What FCM said about one test token.
    struct TestResult: Sendable {
        let token: String
        let ok: Bool
        /// The message name when sent, the error code and message when not.
        let detail: String
        let attempts: Int
        /// "sent (projects/…/messages/1)" or "failed after 2 attempt(s): UNREGISTERED: …".
        let text: String

        init(_ result: TestSend.Result, words: Localized) {
            token = result.token
            attempts = result.attempts
            switch result.outcome {
            case .sent(let name): (ok, detail) = (true, name)
            case .failed(let error): (ok, detail) = (false, "\(error.code.rawValue): \(error.message)")
            }
            text = ok ? words.text("review.test.sent", detail)
                : words.plural("review.test.failed", count: attempts, detail)
        }
    }

    /// The next send time in the campaign's zone and in UTC; `iso` lets the page's script show it
    /// on the viewer's own clock too.
    struct NextRun: Sendable {
        let text: String
        let utc: String
        let iso: String
        /// With recipient time: the run's local time in each recipient's zone ("Sat 28 Nov 2026,
        /// 09:00 in each recipient's time zone"); `text` is then its first wave and `lastWave` its last.
        let local: String?
        let lastWave: String?
    }

    /// The buttons of the "Send it" panel, each saying what it does.
    struct Actions: Sendable {
        /// "Schedule for Fri 20 Mar 2026, 09:30 Asia/Tehran"; nil when there is no time to schedule for.
        let scheduleLabel: String?
        /// "Send now to news, offers"; nil when the campaign cannot be published.
        let sendNowLabel: String?
        let sendNowQuestion: String
        let nextRun: NextRun?
        let scheduleProblem: String?
        let canCancel: Bool
        let canPause: Bool
        let canResume: Bool
    }

    /// The approval panel, when approvals are on: the state, the last decision, what changed
    /// since the version approved last, and what the viewer may do about it.
    struct ApprovalPanel: Sendable {
        struct Change: Sendable {
            let path: String
            let before: String
            let after: String
        }
        let stateText: String
        /// Scheduled, and this version is not the approved one: no run starts until it is.
        let runsHeld: Bool
        let comment: String?
        /// Who decided last, and what ("Rejected by ana@example.com").
        let decision: String?
        let changes: [Change]
        let hasChanges: Bool
        let sinceVersion: String
        let canSubmit: Bool
        let canDecide: Bool
        /// Why this publisher may not decide ("the last change was yours …"), shown instead of the buttons.
        let decideProblem: String?
        let commentLimit = CampaignLimits.approvalCommentCharacters
    }

    struct LabelNote: Sendable {
        let text: String
        let warning: String?

        init(_ forecast: LabelForecast, words: Localized) {
            let used = words.text("review.labels.used", words.number(forecast.used), words.number(LabelBudget.dailyLimit))
            let sent = switch (forecast.chosen, forecast.resolved) {
            case (.auto, .perCampaign): words.text("review.labels.auto_campaign", words.number(LabelBudget.perVariantShare))
            case (.auto, .unlabelled): words.text("review.labels.auto_none", words.number(LabelBudget.dailyLimit))
            case (_, .perCampaign): words.text("review.labels.per_campaign")
            case (_, .unlabelled): words.text("review.labels.none")
            default: words.text("review.labels.per_variant", words.number(forecast.added))
            }
            text = used + " " + sent
            warning = forecast.passesLimit ? words.text("review.labels.passes", words.number(LabelBudget.dailyLimit)) : nil
        }
    }

    static let template = "review"
    let chrome: PageChrome
    let campaign: CampaignRow
    let variants: [Variant]
    /// Whose eyes the preview is through, for a personalised campaign to devices.
    var sample: Sample? = nil
    let requests: [Request]
    let warnings: [String]
    /// The day's FCM label budget and what sending now adds to it (draft and scheduled campaigns).
    var labels: LabelNote? = nil
    /// The audience under the contact policy (control group, caps), when it changes anything.
    var reach: String? = nil
    /// A Live Activity campaign's devices: those of its audience with an activity token.
    var liveActivityReach: String? = nil
    let holdout: Int
    let hasHoldout: Bool
    /// "Holdout: 10% of the audience gets nothing (the control group)."
    let holdoutText: String
    let actions: Actions
    var approval: ApprovalPanel? = nil
    let canTest: Bool
    let sendingConfigured: Bool
    /// The tokens as typed, kept in the form after a test send.
    let tokens: String
    let maxTokens = CampaignLimits.testTokens
    let tokensLabel: String
    /// The variant a test goes out as: the one chosen last time stays chosen.
    let variantKeys: [Choice]
    let actionError: String?
    let testError: String?
    let tests: [TestResult]
    /// Results to show first, above the form that produced them.
    let hasTests: Bool

    /// Each variant as `device` reads it: in its language, its variables filled in from it (with
    /// their defaults when `device` is nil); as written when it has no variables. A Live Activity's
    /// `aps` is shown as if sent now.
    static func variants(_ spec: CampaignSpec, device: HeraldCore.Device? = nil, words: Localized) -> [Variant] {
        let options = spec.options
        return spec.effectiveVariants.map { variant in
            var shown = variant
            if let device {
                shown = variant.localized(variant.notification.translation(for: device.language)?.tag).personalized(for: device)
            } else if variant.isPersonalized {
                shown = variant.withDefaults
            }
            return Variant(key: variant.key, weight: variant.weight, characters: variant.notification.characterCount,
                           preview: NotificationPreview(title: shown.notification.title ?? "", body: shown.notification.body ?? "",
                                                        imageURL: shown.notification.image ?? "", color: options.color ?? "", icon: options.icon ?? "", words: words),
                           aps: shown.liveActivity.map { JSON.object($0.aps(alert: shown.notification, sound: options.appleSound, sendTime: Date())).prettyString() },
                           words: words)
        }
    }

    /// Whose eyes the preview is through: a sample device of the audience (the others a link
    /// away), or each variable's default when the audience has none yet.
    struct Sample: Sendable {
        struct Choice: Sendable {
            let label: String
            let href: String
            let current: Bool
        }
        let text: String
        let choices: [Choice]
        let hasChoices: Bool
    }

    static func requests(_ plan: FanOutPlan, words: Localized) -> [Request] {
        plan.requests.enumerated().map { index, planned in
            Request(number: index + 1, first: index == 0, variant: planned.variantKey, bytes: planned.message.payloadSize,
                    body: JSON.object(["message": planned.message.json(), "validate_only": false]).prettyString(), words: words)
        }
    }
}

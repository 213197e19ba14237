import Foundation
import FCMMessage
import HeraldJSON

/// The rules that look at a whole variant rather than one field.
extension CampaignParser {
    /// Per effective variant: some content, the 1000-character limit, and the analytics label.
    mutating func checkVariants(_ spec: CampaignSpec) {
        let explicit = !spec.variants.isEmpty
        for (index, variant) in spec.effectiveVariants.enumerated() {
            let prefix = explicit ? JSONReader.path("variants", index: index) : ""
            let own = explicit ? spec.variants[index].notification : spec.notification
            // A Live Activity's content is its content state; its title and text are an optional alert.
            if !variant.notification.hasText && variant.data.isEmpty && spec.liveActivity == nil {
                reader.report(JSONReader.path(prefix, "notification"), "no_content",
                    "a notification needs a title or a body (or the message needs data)")
            }
            let count = variant.notification.characterCount
            if count > CampaignLimits.notificationCharacters {
                // Name the field the author can shorten: the variant's own body or title, else the campaign's.
                let field = own?.body != nil ? "body" : own?.title != nil ? "title" : (spec.notification?.body != nil ? "body" : "title")
                let path = own?.body != nil || own?.title != nil
                    ? JSONReader.path(JSONReader.path(prefix, "notification"), field)
                    : JSONReader.path("notification", field)
                reader.report(path, "too_long",
                    "the title and body together have at most \(CampaignLimits.notificationCharacters) characters, found \(count)",
                    limit: CampaignLimits.notificationCharacters)
            }
            if explicit, spec.variants.count > 1, spec.options.labels?.mayLabelVariants ?? true, let label = spec.options.analyticsLabel,
                !Message.isAnalyticsLabel("\(label)-\(variant.key)") {
                reader.report("options.analytics_label", "too_long",
                    "with variants the label becomes \"\(label)-\(variant.key)\", which must have at most 50 characters",
                    limit: CampaignLimits.analyticsLabelCharacters)
            }
        }
    }

    /// Renders every variant as a topic message and checks FCM's 2048-byte topic payload limit
    /// (UTF-8 bytes of the message without its target), saying how many characters to cut. A
    /// derived analytics label is not counted, since the renderer drops it rather than exceed the
    /// limit (an explicit label is counted).
    mutating func checkRenderedPayloads(_ spec: CampaignSpec) {
        let explicit = !spec.variants.isEmpty
        for (index, budget) in spec.budgets().enumerated() where budget.bytes > budget.byteLimit {
            // A Live Activity over the limit without its text is its content state's doing.
            let path = spec.liveActivity != nil && budget.charactersToCut == nil ? "live_activity.content_state"
                : explicit ? JSONReader.path("variants", index: index) : spec.notification == nil ? "data" : "notification"
            reader.report(path, "payload_too_large",
                "the message is \(budget.bytes) bytes; FCM accepts at most \(budget.byteLimit) for \(spec.audience.isPerDevice ? "a message to one device" : "topic and condition messages"). \(budget.advice ?? "")",
                limit: budget.byteLimit)
        }
        // Each language's text is measured too: Persian may fit where English does not, or not.
        for (index, variant) in spec.effectiveVariants.enumerated() {
            for language in variant.notification.translations.keys.sorted() {
                let budget = MessageBudget.measure(campaign: spec, variant: variant.localized(language).withDefaults, target: spec.audience.sampleTarget)
                guard budget.bytes > budget.byteLimit else { continue }
                let path = JSONReader.path(explicit ? JSONReader.path("variants", index: index) : "notification", "translations.\(language)")
                reader.report(path, "payload_too_large",
                    "in \(language) the message is \(budget.bytes) bytes; FCM accepts at most \(budget.byteLimit) for a message to one device. \(budget.advice ?? "")",
                    limit: budget.byteLimit)
            }
        }
    }

    /// Apple takes `apns-priority: 10` only for a push it shows: an override that asks for it on
    /// a variant with nothing to show (a background push) would be refused by APNs. A Live
    /// Activity update (or any push type the override names) is not a background push: its
    /// content is the `aps` of the override (or of `live_activity`), and 10 is what FCM's documentation sends.
    mutating func checkBackgroundPriority(_ spec: CampaignSpec) {
        guard spec.options.overrides.apns?["headers"]?["apns-priority"]?.stringValue == "10",
              !spec.options.overrides.namesItsOwnAPNsPushType, spec.liveActivity == nil else { return }
        for variant in spec.effectiveVariants {
            let message = render(campaign: spec, variant: variant.withDefaults, target: spec.audience.sampleTarget,
                                 campaignID: nil, sendTime: Date(timeIntervalSince1970: 0)).json()
            let aps = message["apns"]?["payload"]?["aps"]
            guard message["notification"] == nil, aps?["alert"] == nil, aps?["badge"] == nil, aps?["sound"] == nil else { continue }
            reader.report("options.overrides.apns.headers.apns-priority", "background_priority",
                "variant \(variant.key) has nothing to show (no title, text, badge or sound): Apple accepts such a background push only with priority 5, not 10")
            return
        }
    }
}

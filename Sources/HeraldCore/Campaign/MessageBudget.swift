import FCMMessage
import Foundation
import HeraldJSON

/// How much of its two limits one variant's message uses: the composer's 1000 characters of title
/// and text, and FCM's payload bytes for its target. A marketer counts characters while FCM counts
/// UTF-8 bytes of the whole message, so Persian text at 890 characters can be over FCM's limit;
/// the budget says both, and how many characters to cut to fit.
public struct MessageBudget: Sendable, Equatable {
    public let variant: String
    public let characters: Int
    public let characterLimit: Int
    public let bytes: Int
    public let byteLimit: Int
    /// Characters to cut from the title and text so that both limits hold: 0 when they do, nil
    /// when cutting text cannot help (the data and options alone are over the byte limit).
    public let charactersToCut: Int?

    public var isOver: Bool { charactersToCut != 0 }

    /// The advice a person can act on, or nil when the message fits.
    public var advice: String? {
        guard let cut = charactersToCut else {
            return "The custom data and options alone make the message \(bytes) bytes, over FCM's \(byteLimit): remove some data."
        }
        guard cut > 0 else { return nil }
        return "Shorten the title and text by at least \(cut) character\(cut == 1 ? "" : "s")."
    }
}

extension CampaignSpec {
    /// The budget of each variant as sent to its audience: a topic or condition, or one device
    /// (with every variable at its default; each device's own text is measured again when planned).
    public func budgets() -> [MessageBudget] {
        effectiveVariants.map { MessageBudget.measure(campaign: self, variant: $0.withDefaults, target: audience.sampleTarget) }
    }

    /// The budgets of a campaign still being written: its JSON read as far as it goes, even when
    /// some of it is invalid (nil when it is not a campaign object at all).
    public static func budgets(ofDraft json: JSON) -> [MessageBudget]? {
        var parser = CampaignParser()
        guard let spec = parser.parse(json, ignoring: serverFields, checkingPayloads: false) else { return nil }
        return spec.budgets()
    }
}

extension MessageBudget {
    /// A fixed ten-digit send time: the `apns-expiration` header's length does not depend on it.
    static let sendTime = Date(timeIntervalSince1970: 4_000_000_000)

    static func measure(campaign: CampaignSpec, variant: Variant, target: Target) -> MessageBudget {
        func bytes(_ variant: Variant) -> Int {
            Renderer.render(campaign: campaign, variant: variant, target: target, campaignID: nil, sendTime: sendTime).payloadSize
        }
        let limit = target.payloadLimit
        let characters = variant.notification.characterCount
        let size = bytes(variant)
        let overCharacters = max(0, characters - CampaignLimits.notificationCharacters)
        var cut: Int? = overCharacters
        if size > limit {
            // Binary search for the fewest characters whose removal (from the end of the text,
            // then of the title) brings the message within the limit.
            if bytes(variant.shortened(by: characters)) > limit {
                cut = nil
            } else {
                var low = 1, high = characters
                while low < high {
                    let middle = (low + high) / 2
                    if bytes(variant.shortened(by: middle)) <= limit { high = middle } else { low = middle + 1 }
                }
                cut = max(low, overCharacters)
            }
        }
        return MessageBudget(variant: variant.key, characters: characters, characterLimit: CampaignLimits.notificationCharacters,
                             bytes: size, byteLimit: limit, charactersToCut: cut)
    }
}

extension Variant {
    /// This variant with `count` characters fewer: from the end of the body, then of the title.
    func shortened(by count: Int) -> Variant {
        var copy = self
        var left = count
        if let body = notification.body {
            let cut = min(left, body.count)
            copy.notification.body = String(body.dropLast(cut))
            left -= cut
        }
        if left > 0, let title = notification.title {
            copy.notification.title = String(title.dropLast(min(left, title.count)))
        }
        return copy
    }
}

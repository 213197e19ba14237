import FCMMessage
import Foundation
import HeraldJSON

/// A personalised variant's message rendered once, with stand-ins for the device's token (and
/// its Live Activity's) and for its title and text (the texts with variables), so that each device's message is the
/// pieces joined around its own values: the same bytes `Renderer` gives for that device, without
/// rendering and serializing a message per device.
///
/// Only for messages well within FCM's limit: `body(for:)` is nil (render in full) when the
/// device's message would be over it, where the derived analytics label may give way, or when a
/// text comes out empty.
struct PersonalizedMessage: Sendable {
    enum Slot: Sendable { case token, title, body, liveActivityToken }

    /// The serialized message, cut at each stand-in: `pieces.count == slots.count + 1`.
    struct Pieces: Sendable {
        var pieces: [String] = []
        var slots: [Slot] = []

        /// Cuts `text` at every occurrence of each stand-in (JSON string literals, quotes included).
        init?(_ text: String, standIns: [(literal: String, slot: Slot)]) {
            var rest = Substring(text)
            while true {
                let next = standIns.compactMap { standIn in rest.range(of: standIn.literal).map { ($0, standIn.slot) } }
                    .min { $0.0.lowerBound < $1.0.lowerBound }
                guard let (range, slot) = next else { break }
                pieces.append(String(rest[..<range.lowerBound]))
                slots.append(slot)
                rest = rest[range.upperBound...]
            }
            pieces.append(String(rest))
            guard !slots.isEmpty else { return nil }
        }

        func joined(_ values: [Slot: String]) -> String {
            var result = pieces[0]
            for (index, slot) in slots.enumerated() {
                result += values[slot] ?? ""
                result += pieces[index + 1]
            }
            return result
        }

        func size(_ values: [Slot: String]) -> Int {
            pieces.reduce(0) { $0 + $1.utf8.count } + slots.reduce(0) { $0 + (values[$1]?.utf8.count ?? 0) }
        }
    }

    let title: MessageTemplate?
    let body: MessageTemplate?
    /// The message sent, and the message as FCM measures it (without its target).
    let sent: Pieces
    let measured: Pieces

    static let standIn: [Slot: String] = [
        .token: DevicePlanner.placeholder,
        .title: "HERALD-TITLE-7a6b5c4d3e2f10f1e2d3c4b5a6978879",
        .body: "HERALD-BODY-96a5b4c3d2e1f00f1e2d3c4b5a69788796",
        .liveActivityToken: "HERALD-LIVE-ACTIVITY-TOKEN-5e4d3c2b1a0f9e8d7c6b5a4",
    ]

    /// Nil when the variant cannot be prepared so (the full render is used for each device).
    /// The message for devices of `kind` (its target `token` or `fid`).
    init?(_ campaign: CampaignSpec, _ variant: Variant, kind: DeviceKind, campaignID: String, sendTime: Date) {
        // A content state's variables are filled in by the full render: they have no stand-ins here.
        if variant.liveActivity?.hasVariables == true { return nil }
        func template(_ text: String?) -> MessageTemplate? {
            guard let text, Variant.hasVariables(text), case .success(let parsed) = MessageTemplate.parse(text) else { return nil }
            return parsed
        }
        title = template(variant.notification.title)
        body = template(variant.notification.body)
        var stood = variant
        if title != nil { stood.notification.title = Self.standIn[.title] }
        if body != nil { stood.notification.body = Self.standIn[.body] }
        let message = Renderer.render(campaign: campaign, variant: stood, target: DevicePlanner.placeholderTarget(kind), campaignID: campaignID,
                                      sendTime: sendTime, liveActivityToken: Self.standIn[.liveActivityToken])
        // A derived label already given way to the stand-ins' length would differ per device.
        if message.fcmOptions == nil, Renderer.analyticsLabel(campaign: campaign, variantKey: variant.key, campaignID: campaignID) != nil {
            return nil
        }
        let literals = Self.standIn.map { (JSON.string($0.value).serializedString(), $0.key) }
        guard let sent = Pieces(message.json().serializedString(), standIns: literals),
              let measured = Pieces(message.jsonWithoutTarget().serializedString(), standIns: literals),
              sent.slots.filter({ $0 == .token }).count == 1 else { return nil }
        self.sent = sent
        self.measured = measured
    }

    /// `device`'s message, or nil when it must be rendered in full.
    func body(for device: Device) -> String? {
        var values: [Slot: String] = [.token: JSON.string(device.token).serializedString()]
        if sent.slots.contains(.liveActivityToken), let activity = device.liveActivityToken {
            values[.liveActivityToken] = JSON.string(activity).serializedString()
        }
        for (slot, template) in [(Slot.title, title), (.body, body)] {
            guard let template else { continue }
            let text = template.render(for: device)
            if text.isEmpty { return nil }
            values[slot] = JSON.string(text).serializedString()
        }
        guard measured.size(values) <= Message.tokenPayloadLimit else { return nil }
        return sent.joined(values)
    }
}

import Foundation
import HeraldCore
import FCMMessage
import HeraldFCM // SplitMix64, a seeded generator
import HeraldJSON
import Testing

/// Random campaigns with random options: whatever the renderer writes is a message FCM accepts,
/// serialises to valid JSON, and decodes back to itself.
@Suite struct RendererPropertyTests {
    @Test(arguments: [UInt64(11), 12, 13])
    func everyRenderedMessageIsValidV1(seed: UInt64) throws {
        var rng = SplitMix64(state: seed)
        func maybe(_ value: String) -> String? { Bool.random(using: &rng) ? value : nil }
        for _ in 0..<300 {
            var options: [String] = []
            if let v = maybe(#""priority": "\#(Bool.random(using: &rng) ? "high" : "normal")""#) { options.append(v) }
            if let v = maybe(#""expiry_seconds": \#(Int.random(in: 0...2_419_200, using: &rng))"#) { options.append(v) }
            for (key, value) in [("sound", "default"), ("icon", "ic"), ("color", "#a1b2c3"), ("click_action", "OPEN"),
                                 ("ios_sound", "a.caf"), ("ios_category", "CAT"), ("web_link", "https://e.example/p"),
                                 ("web_icon", "https://e.example/i.png"), ("android_channel_id", "ch"), ("collapse_key", "k-1"),
                                 ("analytics_label", "lbl")] {
                if let v = maybe(#""\#(key)": "\#(value)""#) { options.append(v) }
            }
            if let v = maybe(#""ios_badge": \#(Int.random(in: 0...99_999, using: &rng))"#) { options.append(v) }
            let image = Bool.random(using: &rng) ? #", "image": "https://e.example/a.png""# : ""
            let spec = try campaign("""
                {"name": "p", "topics": ["news"], "notification": {"title": "سلام", "body": "שלום 👋🏽"\(image)},
                 "data": {"k": "v"}, "options": {\(options.joined(separator: ", "))}}
                """)
            let targets: [Target] = [.topic("news"), .condition("'a' in topics && 'b' in topics"), .token("tok"), .fid("cAbCdEfGhIjKlMnOpQrStU")]
            let target = targets.randomElement(using: &rng)!
            let message = exported(Renderer.render(campaign: spec, variant: spec.effectiveVariants[0], target: target,
                                          campaignID: "id-\(Int.random(in: 0...999, using: &rng))",
                                          sendTime: Date(timeIntervalSince1970: Double(Int.random(in: 1_600_000_000...2_000_000_000, using: &rng)))))
            #expect(message.problems() == [], "\(spec.toJSON().serializedString())")
            let json = try JSON.parse(message.json().serialized())
            #expect(try Message.fromJSON(json) == message)
            #expect(message.json().serializedString().contains("{}") == false, "no empty objects")
        }
    }
}

@testable import HeraldCore
import HeraldJSON
import Testing

/// The schema the API document embeds must name exactly the members the parser accepts.
@Suite struct CampaignSchemaTests {
    func keys(_ schema: JSON?, _ path: [String]) -> Set<String> {
        var node = schema
        for key in path { node = node?[key] }
        return Set(node?["properties"]?.objectValue?.keys ?? [])
    }

    /// A document that sets every member the schema lists (at each level) must parse; a member the
    /// parser does not know would fail as `unknown_field`.
    @Test func everyMemberTheSchemaListsIsAccepted() throws {
        let schema = CampaignSpec.jsonSchema
        let document = """
            {"name": "n", "notification": {"title": "t", "body": "b", "image": "https://x.example/a.png"},
             "topics": ["t"], "data": {"k": "v"},
             "options": {"android_channel_id": "c", "sound": "s", "click_action": "a", "ios_sound": "s", "ios_category": "c",
                         "icon": "i", "priority": "high", "color": "#000000", "ios_badge": 1, "web_link": "https://x.example",
                         "web_icon": "https://x.example/i.png", "expiry_seconds": 1, "analytics_label": "l", "labels": "per_campaign", "collapse_key": "k",
                         "overrides": {"android": {}, "apns": {}, "webpush": {}}},
             "variants": [{"key": "A", "weight": 1, "notification": {"body": "x"}, "data": {"a": "b"}}, {"key": "B", "weight": 1}],
             "holdout_percent": 1, "schedule": {"kind": "now"},
             "delivery": {"max_per_minute": 100, "latest_delivery_minutes": 30, "category": "promotions", "transactional": true,
                          "window": {"start": "08:00", "end": "20:00", "time_zone": "Europe/Berlin"}},
             "auto_winner": {"after_minutes": 60, "metric": "opens", "confidence": 99, "fallback": "none"}}
            """
        let parsed = try JSON.parse(document)
        // The other audiences are each exactly-one-of with topics, so they cannot be in one document;
        // a Live Activity is for devices, without data (LiveActivityCampaignTests sets it).
        #expect(Set(parsed.objectValue?.keys ?? []).union(["condition", "segment", "tokens", "live_activity"]) == keys(schema, []))
        #expect(CampaignParser.liveActivityFields == keys(schema, ["properties", "live_activity"]))
        #expect(Set(parsed["options"]?.objectValue?.keys ?? []) == keys(schema, ["properties", "options"]))
        // Translations are for device audiences only (AudienceTests sets them).
        #expect(Set(parsed["notification"]?.objectValue?.keys ?? []).union(["translations"]) == keys(schema, ["properties", "notification"]))
        #expect(Set(parsed["variants"]?.arrayValue?.first?.objectValue?.keys ?? []) == keys(schema, ["properties", "variants", "items"]))
        // Recipient time is for device audiences only (RecipientTimeTests sets it); a spread is
        // max_per_minute or spread_minutes, not both (DeliveryControlsTests sets the other).
        #expect(Set(parsed["delivery"]?.objectValue?.keys ?? []).union(["recipient_time", "spread_minutes"]) == keys(schema, ["properties", "delivery"]))
        #expect(Set(parsed["delivery"]?["window"]?.objectValue?.keys ?? []) == keys(schema, ["properties", "delivery", "properties", "window"]))
        #expect(Set(parsed["auto_winner"]?.objectValue?.keys ?? []) == keys(schema, ["properties", "auto_winner"]))
        _ = try campaign(document)
        // And the parser knows no member the schema leaves out.
        #expect(CampaignParser.topLevelFields == keys(schema, []))
        #expect(CampaignParser.optionFields == keys(schema, ["properties", "options"]))
    }
}

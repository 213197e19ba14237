import Foundation
import HeraldCore
import FCMMessage
import HeraldJSON
import Testing

@Suite struct RendererTests {
    static let sendTime = Date(timeIntervalSince1970: 1_800_000_000.7)

    func rendered(_ options: String, notification: String = #"{"title": "T", "body": "B"}"#, variants: String? = nil,
                  key: String = "A", target: Target = .topic("news"), id: String? = nil) throws -> JSON {
        let variantsMember = variants.map { #", "variants": \#($0)"# } ?? ""
        let spec = try campaign(#"{"name": "n", "topics": ["news"], "notification": \#(notification), "options": \#(options)\#(variantsMember)}"#)
        let message = try #require(spec.variant(key).map {
            exported(Renderer.render(campaign: spec, variant: $0, target: target, campaignID: id, sendTime: Self.sendTime))
        })
        #expect(message.problems() == [])
        return message.json()
    }

    @Test func expiryIsEachPlatformsOwnField() throws {
        let json = try rendered(#"{"expiry_seconds": 3600}"#)
        #expect(json["android"]?["ttl"] == "3600s")
        #expect(json["apns"]?["headers"]?["apns-expiration"] == "1800003600")  // send time (whole seconds) + 1 hour
        #expect(json["webpush"]?["headers"]?["TTL"] == "3600")
        let now = try rendered(#"{"expiry_seconds": 0}"#)
        #expect(now["android"]?["ttl"] == "0s")
        #expect(now["apns"]?["headers"]?["apns-expiration"] == "0")
        #expect(now["webpush"]?["headers"]?["TTL"] == "0")
    }

    @Test func priorityIsEachPlatformsOwnField() throws {
        let high = try rendered(#"{"priority": "high"}"#)
        #expect(high["android"]?["priority"] == "HIGH")
        #expect(high["apns"]?["headers"]?["apns-priority"] == "10")
        #expect(high["webpush"]?["headers"]?["Urgency"] == "high")
        let normal = try rendered(#"{"priority": "normal"}"#)
        #expect(normal["android"]?["priority"] == "NORMAL")
        #expect(normal["apns"]?["headers"]?["apns-priority"] == "5")
        #expect(normal["webpush"]?["headers"]?["Urgency"] == "normal")
    }

    @Test func soundBadgeIconColourChannelAndCollapseKey() throws {
        let json = try rendered("""
            {"sound": "chime", "ios_badge": 3, "icon": "ic_stat", "web_icon": "https://example.com/i.png", "color": "#112233",
             "android_channel_id": "news", "collapse_key": "score"}
            """)
        #expect(json["android"] == [
            "collapse_key": "score",
            "notification": ["icon": "ic_stat", "color": "#112233", "sound": "chime", "channel_id": "news", "notification_count": 3],
        ])
        #expect(json["apns"] == ["headers": ["apns-collapse-id": "score"], "payload": ["aps": ["badge": 3, "sound": "chime"]]])
        #expect(json["webpush"] == ["headers": ["Topic": "score"], "notification": ["icon": "https://example.com/i.png"]])
        let ios = try rendered(#"{"sound": "chime", "ios_sound": "bell.caf", "click_action": "OPEN", "ios_category": "CAT"}"#)
        #expect(ios["apns"]?["payload"]?["aps"] == ["sound": "bell.caf", "category": "CAT"])
        #expect(ios["android"]?["notification"] == ["sound": "chime", "click_action": "OPEN"])
        let click = try rendered(#"{"click_action": "OPEN"}"#)
        #expect(click["apns"]?["payload"]?["aps"]?["category"] == "OPEN")
    }

    @Test func nothingUnsetIsWritten() throws {
        let json = try rendered("{}")
        #expect(json == ["topic": "news", "notification": ["title": "T", "body": "B"]])
    }

    @Test func analyticsLabelPerCampaignAndVariant() throws {
        let variants = #"[{"key": "A", "weight": 1}, {"key": "B", "weight": 1}]"#
        #expect(try rendered("{}", id: "c42")["fcm_options"] == ["analytics_label": "herald-c42-A"])
        #expect(try rendered("{}", variants: variants, key: "B", id: "c42")["fcm_options"] == ["analytics_label": "herald-c42-B"])
        #expect(try rendered(#"{"analytics_label": "spring"}"#, variants: variants, key: "B")["fcm_options"]
            == ["analytics_label": "spring-B"])
        #expect(try rendered(#"{"analytics_label": "spring"}"#)["fcm_options"] == ["analytics_label": "spring"])
        // A long id is cut so the label keeps FCM's 50 characters and the key; other characters are dropped.
        let long = try rendered("{}", id: "018f3a1c-7b2e-7c4d-9a1b-2f3e4d5c6b7a-0123456789/x")
        let label = try #require(long["fcm_options"]?["analytics_label"]?.stringValue)
        #expect(label.count == 50)
        #expect(label.hasPrefix("herald-018f3a1c-7b2e"))
        #expect(label.hasSuffix("-A"))
        #expect(Message.isAnalyticsLabel(label))
    }

    @Test func aDerivedLabelGivesWayToThePayloadLimit() throws {
        // 1000 Persian characters fill a topic message; the derived label is dropped rather than exceed 2048 bytes.
        let text = String(repeating: "س", count: 1000)
        let notification = #"{"body": \#(quoted(text))}"#
        let topic = try rendered("{}", notification: notification, id: "c42")
        #expect(topic["fcm_options"] == nil)
        #expect(topic.serialized().count - #""topic":"news","#.utf8.count <= 2048)
        let token = try rendered("{}", notification: notification, target: .token("tok"), id: "c42")
        #expect(token["fcm_options"] == ["analytics_label": "herald-c42-A"])
    }

    @Test func overridesAreDeepMergedLast() throws {
        let json = try rendered("""
            {"priority": "high", "expiry_seconds": 60, "overrides": {
               "android": {"priority": "NORMAL", "notification": {"tag": "t1"}, "ttl": null},
               "apns": {"headers": {"apns-push-type": "alert"}, "payload": {"aps": {"thread-id": "x"}, "custom": "1"}},
               "webpush": {"notification": {"dir": "rtl"}}}}
            """)
        #expect(json["android"] == ["priority": "NORMAL", "notification": ["tag": "t1"]])
        #expect(json["apns"]?["headers"] == ["apns-priority": "10", "apns-expiration": "1800000060", "apns-push-type": "alert"])
        #expect(json["apns"]?["payload"] == ["aps": ["thread-id": "x"], "custom": "1"])
        #expect(json["webpush"]?["notification"] == ["dir": "rtl"])
    }

    @Test func variantsRenderTheirOwnTextAndData() throws {
        let variants = #"[{"key": "A", "weight": 1}, {"key": "B", "weight": 1, "notification": {"body": "B2"}, "data": {"v": "b"}}]"#
        let a = try rendered("{}", variants: variants, key: "A")
        let b = try rendered("{}", variants: variants, key: "B")
        #expect(a["notification"] == ["title": "T", "body": "B"])
        #expect(a["data"] == nil)
        #expect(b["notification"] == ["title": "T", "body": "B2"])
        #expect(b["data"] == ["v": "b"])
    }
}

@Suite struct BackgroundPushTests {
    /// A data-only campaign with a priority is a background push on iOS: Apple refuses
    /// `apns-priority: 10` for one; it must be 5, with `content-available: 1` and the background type.
    @Test func aDataOnlyCampaignWithHighPriorityRendersABackgroundPush() throws {
        let spec = try CampaignSpec.parse(["name": "sync", "topics": ["news"], "data": ["refresh": "1"], "options": ["priority": "high"]]).get()
        let message = exported(Renderer.render(campaign: spec, variant: spec.effectiveVariants[0], target: .topic("news"), campaignID: "c", sendTime: Date()))
        let apns = try #require(message.json()["apns"])
        #expect(apns["headers"]?["apns-priority"] == "5")
        #expect(apns["headers"]?["apns-push-type"] == "background")
        #expect(apns["payload"]?["aps"]?["content-available"] == 1)
        #expect(message.json()["android"]?["priority"] == "HIGH")
        // With something to show, the campaign's priority stands.
        let shown = try CampaignSpec.parse(["name": "n", "topics": ["news"], "notification": ["title": "t", "body": "b"], "options": ["priority": "high"]]).get()
        let visible = exported(Renderer.render(campaign: shown, variant: shown.effectiveVariants[0], target: .topic("news"), campaignID: "c", sendTime: Date()))
        #expect(visible.json()["apns"]?["headers"]?["apns-priority"] == "10")
        #expect(visible.json()["apns"]?["headers"]?["apns-push-type"] == nil)
    }
}

/// `null` in an override removes the rendered member, in header maps and free-form blocks alike
/// (JSON Merge Patch), and is accepted on save.
@Suite struct OverrideNullTests {
    @Test func nullRemovesARenderedMember() throws {
        let spec = try CampaignSpec.parse(["name": "n", "topics": ["news"], "notification": ["title": "t", "body": "b"],
                                           "options": ["priority": "high", "sound": "ding",
                                                       "overrides": ["apns": ["headers": ["apns-priority": .null],
                                                                              "payload": ["aps": ["sound": .null]]]]]]).get()
        let message = exported(Renderer.render(campaign: spec, variant: spec.effectiveVariants[0], target: .topic("news"), campaignID: "c", sendTime: Date()))
        let apns = try #require(message.json()["apns"])
        #expect(apns["headers"]?["apns-priority"] == nil)
        #expect(apns["payload"]?["aps"]?["sound"] == nil)
        #expect(apns.serializedString().contains("null") == false)
        #expect(message.json()["android"]?["notification"]?["sound"] == "ding")
    }
}

/// Live Activities as FCM documents them ("Send Live Activity updates"): a campaign whose Apple
/// override is FCM's documented request sends it as written, not rewritten into a background push
/// (which APNs refuses at priority 10); `apns-push-type` takes Apple's values only.
@Suite struct LiveActivityTests {
    static let documented: JSON = ["live_activity_token": "LA_PUSH_TOKEN", "headers": ["apns-priority": "10"],
                                   "payload": ["aps": ["timestamp": 1685952000, "event": "update", "content-state": ["demo": 1]]]]

    @Test func fcmsDocumentedLiveActivityRequestGoesOutAsWritten() throws {
        let token = "fcm-token-1:APA91b" + String(repeating: "t", count: 100)
        let spec = try CampaignSpec.parse(["name": "Score", "tokens": [.string(token)], "data": ["match": "42"],
                                           "options": ["priority": "high", "overrides": ["apns": Self.documented]]]).get()
        let message = exported(Renderer.render(campaign: spec, variant: spec.effectiveVariants[0], target: .token(token), campaignID: "c", sendTime: Date()))
        #expect(message.problems() == [])
        let apns = try #require(message.json()["apns"])
        #expect(apns["headers"] == Self.documented["headers"], "\(apns)")
        #expect(apns["payload"] == Self.documented["payload"], "\(apns)")
        #expect(apns["live_activity_token"] == "LA_PUSH_TOKEN")
    }

    @Test func anAPNsPushTypeOrPriorityAppleDoesNotKnowIsRefusedNamingTheField() throws {
        func errors(_ headers: JSON) -> [FieldError] {
            guard case .failure(let errors) = CampaignSpec.parse(["name": "n", "topics": ["news"], "notification": ["title": "t"],
                                                                  "options": ["overrides": ["apns": ["headers": headers]]]]) else { return [] }
            return errors.errors
        }
        let banana = errors(["apns-push-type": "banana"])
        #expect(banana.count == 1 && banana[0].path.hasSuffix("apns.headers.apns-push-type") && banana[0].code == "invalid_value", "\(banana)")
        #expect(banana.first?.message.contains("liveactivity") == true)
        #expect(errors(["apns-priority": "7"]).first?.path.hasSuffix("apns.headers.apns-priority") == true)
        for type in APNSConfig.pushTypes { #expect(errors(["apns-push-type": .string(type)]).isEmpty, "\(type)") }
    }
}

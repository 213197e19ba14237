import FCMMessage
import Foundation
import HeraldJSON
import Testing
@testable import HeraldCore

/// Devices, segments, personalisation and the per-device planner: the pure rules of audiences.
@Suite struct AudienceTests {
    static let token = "fcm-token:APA91bH" + String(repeating: "x", count: 140)

    func device(_ token: String = AudienceTests.token, _ json: JSON = ["platform": "android"]) throws -> Device {
        guard case .success(let device) = Device.parse(json, token: token) else { throw ValidationErrors(errors: []) }
        return device
    }

    @Test func aDeviceDocumentIsCheckedFieldByFieldAndNormalised() throws {
        let device = try device(Self.token, ["platform": "IOS", "language": "fa_ir", "country": "ir", "time_zone": "Asia/Tehran",
                                             "app_version": "5.2.0-beta", "properties": ["first_name": "Sara"]])
        #expect(device.platform == .ios)
        #expect(device.language == "fa-IR")
        #expect(device.country == "IR")
        #expect(device.properties == ["first_name": "Sara"])

        guard case .failure(let errors) = Device.parse(["platform": "tv", "language": "persian!", "country": "XX", "time_zone": "Mars/Base",
                                                        "app_version": "beta", "properties": ["1st": "x"], "extra": 1], token: "bad token")
        else { Issue.record("accepted"); return }
        #expect(Set(errors.errors.map(\.path)) == ["token", "platform", "language", "country", "time_zone", "app_version", "properties.1st", "extra"])
        #expect(errors.at("token").first?.message.contains("holds a space") == true)
    }

    @Test func appVersionsCompareAsPeopleReadThem() {
        #expect(AppVersion.isAtLeast("5.10", "5.9"))
        #expect(AppVersion.isAtLeast("5.2.0", "5.2"))
        #expect(!AppVersion.isAtLeast("5.1.9", "5.2"))
        #expect(AppVersion.key("5.2.0-beta") == [5, 2])
        #expect(AppVersion.key("v5") == nil)
        // Read by code points, as the OpenAPI pattern reads it: a modifier or a mark after a
        // digit is a suffix (as one grapheme, "3🏻" was no digit and the version was refused).
        #expect(AppVersion.key("3\u{1F3FB}x") == [3])
        #expect(AppVersion.key("5.2\u{301}") == [5, 2])
        #expect(AppVersion.key("5.\u{301}2") == [5])
    }

    @Test func aSegmentRuleRoundTripsAndMatchesAsWritten() throws {
        let json: JSON = ["all": [["field": "language", "in": ["fa"]], ["field": "app_version", "at_least": "5.2"],
                                  ["any": [["property": "city", "equals": "Tehran"], ["property": "vip", "exists": true]]]]]
        guard case .success(let rule) = SegmentRule.parse(json) else { Issue.record("refused"); return }
        #expect(rule.toJSON() == json)
        let sara = try device("a", ["platform": "android", "language": "fa-IR", "app_version": "5.10", "properties": ["city": "Tehran"]])
        let old = try device("b", ["platform": "android", "language": "fa", "app_version": "5.1", "properties": ["city": "Tehran"]])
        let german = try device("c", ["platform": "android", "language": "de", "app_version": "6", "properties": ["vip": "1"]])
        #expect(rule.matches(sara, daysSinceSeen: 1))
        #expect(!rule.matches(old, daysSinceSeen: 1))
        #expect(!rule.matches(german, daysSinceSeen: 1))
        #expect(SegmentRule.condition(.lastSeenWithinDays(30)).matches(sara, daysSinceSeen: 31) == false)
    }

    /// A property takes the lists a field takes: "is one of" and "is not one of" ("not equals" is
    /// the latter with one value), which a device without the property matches neither of.
    @Test func aPropertyIsOneOfOrNoneOfSomeValues() throws {
        let oneOf: JSON = ["all": [["property": "city", "in": ["Tehran", "Shiraz"]]]]
        let noneOf: JSON = ["all": [["property": "city", "not_in": ["Tehran"]]]]
        guard case .success(let isIn) = SegmentRule.parse(oneOf), case .success(let notIn) = SegmentRule.parse(noneOf) else {
            Issue.record("refused")
            return
        }
        #expect(isIn.toJSON() == oneOf && notIn.toJSON() == noneOf)
        let devices = try ["Tehran", "Shiraz", "Berlin", nil].enumerated().map { index, city in
            try device("p\(index)", city.map { ["platform": "android", "properties": ["city": .string($0)]] } ?? ["platform": "android"])
        }
        #expect(devices.map { isIn.matches($0, daysSinceSeen: 0) } == [true, true, false, false])
        #expect(devices.map { notIn.matches($0, daysSinceSeen: 0) } == [false, true, true, false])
        guard case .failure(let errors) = SegmentRule.parse(["all": [["property": "city", "in": []], ["property": "city", "not_in": "Tehran"],
                                                                      ["property": "city"]]])
        else { Issue.record("accepted"); return }
        #expect(errors.errors.map(\.path) == ["rule.all[0].in", "rule.all[1].not_in", "rule.all[2]"])
    }

    /// "Not equals", as the editor offers it, on a field or a property: a list of one not to be
    /// in, the form it is kept and answered in; a device without the property matches neither.
    @Test func notEqualsIsANoneOfWithOneValue() throws {
        guard case .success(let rule) = SegmentRule.parse(["all": [["field": "country", "not_equals": "ir"], ["property": "city", "not_equals": "Tehran"]]])
        else { Issue.record("refused"); return }
        #expect(rule.toJSON() == ["all": [["field": "country", "not_in": ["IR"]], ["property": "city", "not_in": ["Tehran"]]]])
        let devices = try [("IR", "Shiraz"), ("DE", "Tehran"), ("DE", "Berlin"), ("DE", nil)].enumerated().map { index, place in
            try device("n\(index)", ["platform": "android", "country": .string(place.0),
                                      "properties": place.1.map { ["city": .string($0)] } ?? [:]])
        }
        #expect(devices.map { rule.matches($0, daysSinceSeen: 0) } == [false, false, true, false])
        guard case .failure(let errors) = SegmentRule.parse(["all": [["property": "city", "not_equals": 3]]]) else { Issue.record("accepted"); return }
        #expect(errors.errors.map(\.path) == ["rule.all[0].not_equals"])
    }

    @Test func aBadSegmentRuleSaysWhatIsWrongWhere() {
        guard case .failure(let errors) = SegmentRule.parse(["all": [["field": "colour", "equals": "red"], ["field": "language"],
                                                                      ["field": "country", "at_least": "5"], ["last_seen_within_days": 0]]])
        else { Issue.record("accepted"); return }
        #expect(errors.errors.map(\.path) == ["rule.all[0].field", "rule.all[1]", "rule.all[2].at_least", "rule.all[3].last_seen_within_days"])
    }

    @Test func variablesAreFilledInPerDeviceWithTheirDefaults() throws {
        guard case .success(let template) = MessageTemplate.parse("Hello {{first_name | default: \"there\"}}, news for {{ properties.city | default: \"your city\" }}")
        else { Issue.record("refused"); return }
        let sara = try device("s", ["platform": "android", "properties": ["first_name": "Sara", "city": "Shiraz"]])
        let nobody = try device("n", ["platform": "android"])
        #expect(template.render(for: sara) == "Hello Sara, news for Shiraz")
        #expect(template.render(for: nobody) == "Hello there, news for your city")
        #expect(template.withDefaults == "Hello there, news for your city")
        if case .success = MessageTemplate.parse("Hello {{first_name") { Issue.record("an unclosed variable was accepted") }
        if case .success = MessageTemplate.parse("Hello {{first name}}") { Issue.record("a bad name was accepted") }
    }

    @Test func aCampaignChecksItsVariablesWhenSaved() {
        func errors(_ json: JSON) -> [FieldError] {
            if case .failure(let failure) = CampaignSpec.parse(json) { return failure.errors }
            return []
        }
        let onTopics = errors(["name": "n", "notification": ["title": "Hello {{first_name | default: \"you\"}}"], "topics": ["news"]])
        #expect(onTopics.map(\.code) == ["needs_devices"])
        let noDefault = errors(["name": "n", "notification": ["title": "Hello {{first_name}}"], "tokens": [.string(Self.token)]])
        #expect(noDefault.map(\.code) == ["missing_default"])
        #expect(noDefault.first?.path == "notification.title")
        let fine = errors(["name": "n", "notification": ["title": "Hello {{first_name | default: \"you\"}} on {{platform}}"], "tokens": [.string(Self.token)]])
        #expect(fine.isEmpty)
        let badToken = errors(["name": "n", "notification": ["title": "t"], "tokens": ["ok-token", "bad token"]])
        #expect(badToken.map(\.path) == ["tokens[1]"])
        let both = errors(["name": "n", "notification": ["title": "t"], "topics": ["a"], "segment": "00000000-0000-4000-8000-000000000000"])
        #expect(both.map(\.code) == ["conflict"])
    }

    static func abCampaign(holdout: Int = 10) -> CampaignSpec {
        CampaignSpec(name: "A/B", notification: NotificationContent(title: "Hello {{first_name | default: \"there\"}}", body: "News"),
                     audience: .segment(SegmentID("00000000-0000-4000-8000-000000000000")!),
                     variants: [VariantSpec(key: "A", weight: 50, notification: NotificationContent(body: "Variant A")),
                                VariantSpec(key: "B", weight: 50, notification: NotificationContent(body: "Variant B"))],
                     holdoutPercent: holdout)
    }

    @Test func devicesSplitByWeightWithAHoldoutTheSameWayEveryTime() throws {
        let planner = DevicePlanner(campaign: Self.abCampaign(), campaignID: "c1", sendTime: Date(timeIntervalSince1970: 0))
        var counts: [String: Int] = [:]
        for index in 0..<20_000 {
            let device = Device(token: "device-\(index)", platform: .android)
            let key = planner.variant(for: device)?.key ?? "holdout"
            counts[key, default: 0] += 1
            #expect(planner.variant(for: device)?.key ?? "holdout" == key)  // stable
        }
        #expect(abs(counts["holdout", default: 0] - 2000) < 300, "\(counts)")
        #expect(abs(counts["A", default: 0] - 9000) < 400, "\(counts)")
        #expect(abs(counts["B", default: 0] - 9000) < 400, "\(counts)")

        // The rollout reaches exactly the holdout.
        let rollout = try #require(DevicePlanner(rollout: "B", of: Self.abCampaign(), campaignID: "c1", sendTime: Date(timeIntervalSince1970: 0)))
        for index in 0..<2000 {
            let device = Device(token: "device-\(index)", platform: .android)
            #expect((rollout.variant(for: device) != nil) == (planner.variant(for: device) == nil))
        }
    }

    @Test func eachDeviceGetsItsOwnRenderedMessageAndAnOverflowIsAFailureNotASend() throws {
        let planner = DevicePlanner(campaign: Self.abCampaign(holdout: 0), campaignID: "c1", sendTime: Date(timeIntervalSince1970: 0))
        let sara = Device(token: "sara-token", platform: .android, properties: ["first_name": "Sara"])
        let request = try #require(planner.request(for: sara))
        let message = try JSON.parse(try #require(request.body))
        #expect(message["token"] == "sara-token")
        #expect(message["notification"]?["title"] == "Hello Sara")
        let other = try #require(planner.request(for: Device(token: "other", platform: .android)))
        #expect(try JSON.parse(try #require(other.body))["notification"]?["title"] == "Hello there")

        let long = Device(token: "long", platform: .android, properties: ["first_name": String(repeating: "ب", count: 3000)])
        let overflow = try #require(planner.request(for: long))
        #expect(overflow.body == nil)
        #expect(overflow.failure?.contains("4096") == true)

        // Without variables the message is rendered once and each token spliced in, byte for byte
        // what a full render gives.
        var plain = Self.abCampaign(holdout: 0)
        plain.notification = NotificationContent(title: "Sale", body: "Today")
        let fast = DevicePlanner(campaign: plain, campaignID: "c1", sendTime: Date(timeIntervalSince1970: 0))
        let device = Device(token: "tok-1", platform: .ios)
        let variant = try #require(fast.variant(for: device))
        #expect(fast.request(for: device)?.body == DevicePlanner.render(plain, variant, token: "tok-1", campaignID: "c1", sendTime: Date(timeIntervalSince1970: 0)))
    }

    /// A personalised message is rendered once and each device's values spliced in: byte for byte
    /// what a full render of that device's message gives, whatever the values hold (quotes,
    /// backslashes, line breaks, right-to-left text, emoji, nothing), in every language, and at
    /// FCM's limit, where the derived analytics label gives way and then the device fails.
    @Test func aPersonalisedMessageSplicedPerDeviceIsExactlyItsFullRender() throws {
        var campaign = Self.abCampaign(holdout: 0)
        campaign.notification = NotificationContent(title: "Hello {{first_name | default: \"there\"}}", body: "{{city | default: \"Your city\"}}: news")
        campaign.notification?.translations = ["fa": NotificationContent(title: "سلام {{first_name | default: \"دوست\"}}")]
        campaign.options.color = "#1a73e8"
        campaign.options.iosSound = "chime.caf"
        campaign.options.webLink = "https://example.com/sale"
        let sendTime = Date(timeIntervalSince1970: 1_800_000_000)
        let planner = DevicePlanner(campaign: campaign, campaignID: "9b2c1d7e-3f4a-4b5c-8d6e-7f8091a2b3c4", sendTime: sendTime)
        #expect(planner.personalized.count == 8)  // A and B, each in the default text and Persian, for tokens and for FIDs: all prepared
        let names = ["Sara", "\"quoted\" \\ back\\slash", "two\nlines\ttab", "سارا", "नमस्ते 👋🏽", "</script>", "", "\u{1}\u{7f}",
                     String(repeating: "ب", count: 1530), String(repeating: "ب", count: 1560), String(repeating: "ب", count: 3000)]
        var spliced = 0, failed = 0
        for (index, name) in names.enumerated() {
            for language in [nil, "fa-IR", "de"] {
                var properties = ["city": index % 2 == 0 ? "Tehran \"centre\"" : ""]
                if !name.isEmpty { properties["first_name"] = name }
                let device = Device(token: "tok-\(index)-\(language ?? "none")", platform: .android, language: language, properties: properties)
                let request = try #require(planner.request(for: device))
                let variant = try #require(planner.variant(for: device))
                let localized = variant.localized(variant.notification.translation(for: language)?.tag)
                let full = Renderer.render(campaign: campaign, variant: localized.personalized(for: device), target: .token(device.token),
                                           campaignID: "9b2c1d7e-3f4a-4b5c-8d6e-7f8091a2b3c4", sendTime: sendTime)
                if full.payloadSize > Message.tokenPayloadLimit {
                    #expect(request.body == nil && request.failure != nil, "\(name.prefix(20))")
                    failed += 1
                } else {
                    #expect(request.body == full.json().serializedString(), "\(name.prefix(20)) \(language ?? "-")")
                    if full.fcmOptions != nil { spliced += 1 }
                }
            }
        }
        #expect(failed == 3 && spliced > 20)
    }

    @Test func csvRecordsArriveWholeWhateverTheChunks() {
        let text = "token,platform,first_name\r\nt1,android,\"Sara, the \"\"first\"\"\"\nt2,ios,\"two\nlines\"\nt3,web,last"
        for size in [1, 2, 7, 1000] {
            var reader = CSVRecordReader()
            var records: [ImportLine<[String]>] = []
            let bytes = Array(text.utf8)
            for start in stride(from: 0, to: bytes.count, by: size) { records += reader.feed(bytes[start..<min(start + size, bytes.count)]) }
            if let last = reader.finish() { records.append(last) }
            #expect(records.map { try? $0.content.get() } == [["token", "platform", "first_name"], ["t1", "android", "Sara, the \"first\""],
                                                             ["t2", "ios", "two\nlines"], ["t3", "web", "last"]], "chunks of \(size)")
            #expect(records.map(\.number) == [1, 2, 3, 5])
        }
        let layout = try? DeviceCSVLayout.header(["token", "platform", "language", "first_name"]).get()
        #expect(layout?.document(["t", "android", "", "Sara"]) == ["token": "t", "platform": "android", "properties": ["first_name": "Sara"]])
    }

    @Test func eachDeviceGetsItsLanguagesTextElseTheCampaignsOwn() throws {
        let json: JSON = ["name": "Sale", "tokens": ["t1"],
                          "notification": ["title": "Sale", "body": "Everything 20% off",
                                           "translations": ["fa": ["title": "حراج", "body": "همه چیز ۲۰٪ تخفیف"], "he-il": ["title": "מבצע"]]],
                          "variants": [["key": "A", "weight": 1], ["key": "B", "weight": 1, "notification": ["translations": ["fa": ["body": "فقط امروز"]]]]]]
        guard case .success(let spec) = CampaignSpec.parse(json) else { Issue.record("refused"); return }
        #expect(spec.notification?.translations.keys.sorted() == ["fa", "he-IL"])
        #expect(CampaignSpec.parse(spec.toJSON()) == .success(spec))
        let planner = DevicePlanner(campaign: spec, campaignID: "c1", sendTime: Date(timeIntervalSince1970: 0))
        func sent(_ language: String?) throws -> (key: String, title: String?, body: String?) {
            // Find a device of each variant: tokens differ only in their number.
            let device = Device(token: "t-\(language ?? "none")", platform: .android, language: language)
            let request = try #require(planner.request(for: device))
            let message = try JSON.parse(try #require(request.body))
            return (request.variantKey, message["notification"]?["title"]?.stringValue, message["notification"]?["body"]?.stringValue)
        }
        let persian = try sent("fa-IR")
        #expect(persian.title == "حراج")
        #expect(persian.body == (persian.key == "B" ? "فقط امروز" : "همه چیز ۲۰٪ تخفیف"))
        let hebrew = try sent("he-IL")
        #expect(hebrew.title == "מבצע" && hebrew.body == "Everything 20% off")  // a field the translation leaves out stays
        let german = try sent("de")
        #expect(german.title == "Sale")
        #expect(try sent(nil).title == "Sale")

        guard case .failure(let errors) = CampaignSpec.parse(["name": "n", "topics": ["news"],
                                                              "notification": ["title": "t", "translations": ["fa": ["title": "ت"], "not a tag": ["title": "x"]]]])
        else { Issue.record("accepted"); return }
        #expect(Set(errors.errors.map(\.code)) == ["invalid_value", "needs_devices"])
    }
}

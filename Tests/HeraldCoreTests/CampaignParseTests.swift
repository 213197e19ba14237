import HeraldCore
import FCMMessage
import HeraldJSON
import Testing

@Suite struct CampaignParseTests {
    static let full = """
        {"name": "Spring sale", "notification": {"title": "Sale", "body": "20% off today", "image": "https://cdn.example.com/sale.png"},
         "topics": ["news", "/topics/deals"], "data": {"screen": "sale"},
         "options": {"android_channel_id": "promos", "priority": "high", "sound": "default", "icon": "ic_sale",
                     "color": "#ff8800", "click_action": "OPEN_SALE", "ios_badge": 1, "ios_category": "SALE",
                     "web_link": "https://example.com/sale", "expiry_seconds": 86400, "analytics_label": "spring-sale",
                     "collapse_key": "sale", "overrides": {"android": {"direct_boot_ok": true}}},
         "variants": [{"key": "A", "weight": 50}, {"key": "B", "weight": 50, "notification": {"title": "Big sale"}, "data": {"v": "b"}}],
         "holdout_percent": 10}
        """

    @Test func readsEveryFieldAndWritesItBack() throws {
        let spec = try campaign(Self.full)
        #expect(spec.name == "Spring sale")
        #expect(spec.audience == .topics(["news", "deals"]))
        #expect(spec.options.priority == .high)
        #expect(spec.options.expirySeconds == 86400)
        #expect(spec.options.overrides.android == ["direct_boot_ok": true])
        #expect(spec.holdoutPercent == 10)
        let b = try #require(spec.variant("B"))
        #expect(b.notification == NotificationContent(title: "Big sale", body: "20% off today", image: "https://cdn.example.com/sale.png"))
        #expect(b.data == ["screen": "sale", "v": "b"])
        #expect(CampaignSpec.parse(spec.toJSON()) == .success(spec))
        #expect(spec.toJSON()["topics"] == ["news", "deals"])
    }

    @Test func withoutVariantsTheNotificationIsVariantAOfWeight100() throws {
        let spec = try campaign(#"{"name": "n", "notification": {"body": "hello"}, "topics": ["news"]}"#)
        #expect(spec.effectiveVariants.map(\.key) == ["A"])
        #expect(spec.effectiveVariants.first?.weight == 100)
        #expect(spec.toJSON() == (try JSON.parse(#"{"name": "n", "notification": {"body": "hello"}, "topics": ["news"]}"#)))
    }

    @Test func reportsEveryFailureAtOnceWithPathsAndCodes() throws {
        let found = try errors(of: """
            {"name": "", "notification": {"title": 5, "image": "ftp://x.example/a.png"}, "topics": ["ok", "bad topic"],
             "data": {"from": "x", "google.x": "y", "n": 1},
             "options": {"color": "red", "web_link": "http://example.com", "expiry_seconds": 2419201, "priority": "urgent",
                         "colour": "#ffffff"},
             "variants": [{"key": "A", "weight": 0}, {"key": "A", "weight": 1.5}], "extra": true}
            """)
        let pairs = Set(found.map { "\($0.path) \($0.code)" })
        let expected: Set<String> = [
            "extra unknown_field", "name required", "notification.title wrong_type", "notification.image not_a_web_url",
            "topics[1] invalid_topic", "data.from reserved_key", "data.google.x reserved_key", "data.n wrong_type",
            "options.colour unknown_field", "options.color invalid_color", "options.web_link not_https",
            "options.expiry_seconds out_of_range", "options.priority invalid_value",
            "variants[0].weight out_of_range", "variants[1].key duplicate", "variants[1].weight wrong_type",
        ]
        #expect(expected.isSubset(of: pairs), "missing: \(expected.subtracting(pairs))")
        let wrongType = try #require(found.first { $0.path == "notification.title" })
        #expect(wrongType.message == "expected a string, found a number")
        #expect(found.first { $0.path == "options.expiry_seconds" }?.limit == 2_419_200)
    }

    @Test(arguments: [
        ("س", 1000, true), ("س", 1001, false),  // Persian: 2 bytes each in UTF-8, 1 character each
        ("ש", 1000, true), ("ש", 1001, false),  // Hebrew
        // Hindi: a conjunct of 4 scalars (12 bytes) is one character; an emoji of 4 scalars (15 bytes)
        // too. Fewer of them fit FCM's 2048 bytes, but 1001 are still counted as 1001, not by scalars.
        ("क्षि", 160, true), ("क्षि", 1001, false),
        ("👩🏽‍🚀", 130, true), ("👩🏽‍🚀", 1001, false),
    ])
    func limitsNotificationTextToAThousandCharacters(letter: String, count: Int, accepted: Bool) throws {
        let title = String(repeating: letter, count: 50)
        let body = String(repeating: letter, count: count - 50)
        let document = #"{"name": "n", "notification": {"title": \#(quoted(title)), "body": \#(quoted(body))}, "topics": ["news"]}"#
        let result = try parseCampaign(document)
        if accepted {
            #expect((try? result.get()) != nil, "\(result)")
        } else {
            let failure = try #require(result.failureValue)
            let error = try #require(failure.at("notification.body").first)
            #expect(error.code == "too_long")
            #expect(error.limit == 1000)
            #expect(error.message.contains("1000"))
            #expect(error.message.contains("\(count)"))
        }
    }

    @Test func countsTheVariantsOwnTextWithTheInheritedText() throws {
        let body = String(repeating: "ا", count: 990)
        let found = try errors(of: """
            {"name": "n", "notification": {"body": \(quoted(body))}, "topics": ["t"],
             "variants": [{"key": "A", "weight": 1}, {"key": "B", "weight": 1, "notification": {"title": "this title is too long"}}]}
            """)
        #expect(found.map(\.path) == ["variants[1].notification.title"])
        #expect(found.first?.code == "too_long")
    }

    @Test func refusesPayloadsOverTheTopicLimit() throws {
        let data = (0..<40).map { "\"key\($0)\": \(quoted(String(repeating: "v", count: 50)))" }.joined(separator: ", ")
        let found = try errors(of: #"{"name": "n", "notification": {"body": "hi"}, "topics": ["t"], "data": {\#(data)}}"#)
        let error = try #require(found.first)
        #expect(error.path == "notification")
        #expect(error.code == "payload_too_large")
        #expect(error.limit == 2048)
        let variants = try errors(of: """
            {"name": "n", "notification": {"body": "hi"}, "topics": ["t"],
             "variants": [{"key": "A", "weight": 1}, {"key": "B", "weight": 1, "data": {\(data)}}]}
            """)
        #expect(variants.map(\.path) == ["variants[1]"])
    }

    @Test func topicsAndConditionsAreChecked() throws {
        #expect(try errors(of: #"{"name": "n", "notification": {"body": "b"}}"#).map(\.code) == ["required"])
        #expect(try errors(of: #"{"name": "n", "notification": {"body": "b"}, "topics": []}"#).map(\.code) == ["required"])
        #expect(try errors(of: #"{"name": "n", "notification": {"body": "b"}, "topics": ["a"], "condition": "'a' in topics"}"#)
            .map(\.code) == ["conflict"])
        let six = "'a' in topics || 'b' in topics || 'c' in topics || 'd' in topics || 'e' in topics || 'f' in topics"
        #expect(try errors(of: #"{"name": "n", "notification": {"body": "b"}, "condition": \#(quoted(six))}"#)
            .map(\.code) == ["too_many_topics"])
        #expect(try errors(of: #"{"name": "n", "notification": {"body": "b"}, "condition": "'a' in topics &&"}"#)
            .map(\.code) == ["invalid_condition"])
        #expect(try errors(of: #"{"name": "n", "notification": {"body": "b"}, "condition": "'a' in topics || 'b' in topics && 'c' in topics"}"#)
            .map(\.code) == ["invalid_condition"])
        let five = "('a' in topics || 'b' in topics) && !('c' in topics || 'd' in topics || 'e' in topics)"
        _ = try campaign(#"{"name": "n", "notification": {"body": "b"}, "condition": \#(quoted(five))}"#)
        // With A/B, one place of the five is needed for the bucket topics.
        let ab = try errors(of: """
            {"name": "n", "notification": {"body": "b"}, "condition": \(quoted(five)),
             "variants": [{"key": "A", "weight": 1}, {"key": "B", "weight": 1}]}
            """)
        #expect(ab.map { "\($0.path) \($0.code) \($0.limit ?? 0)" } == ["condition too_many_topics 4"])
        #expect(try errors(of: #"{"name": "n", "notification": {"body": "b"}, "topics": ["a", "a"]}"#).map(\.code) == ["duplicate"])
    }

    @Test func overridesAreValidatedAsV1Blocks() throws {
        let found = try errors(of: """
            {"name": "n", "notification": {"body": "b"}, "topics": ["t"],
             "options": {"overrides": {"android": {"ttl": "1 day", "notification": {"colour": "#fff"}},
                                       "apns": {"headers": {"apns-priority": 7}},
                                       "webpush": {"fcm_options": {"link": "http://example.com"}}, "ios": {}}}}
            """)
        let pairs = found.map { "\($0.path) \($0.code)" }
        #expect(Set(pairs) == [
            "options.overrides.ios unknown_field", "options.overrides.android.ttl invalid_duration",
            "options.overrides.android.notification.colour unknown_field",
            "options.overrides.apns.headers.apns-priority wrong_type", "options.overrides.webpush.fcm_options.link not_https",
        ])
    }

    @Test func aVariantNeedsTextOrData() throws {
        #expect(try errors(of: #"{"name": "n", "topics": ["t"]}"#).map { "\($0.path) \($0.code)" } == ["notification no_content"])
        _ = try campaign(#"{"name": "n", "topics": ["t"], "data": {"k": "v"}}"#)
    }

    @Test func serverFieldsCanBeIgnored() throws {
        let document = try JSON.parse(#"{"id": "c1", "version": 3, "name": "n", "notification": {"body": "b"}, "topics": ["t"]}"#)
        #expect((try? CampaignSpec.parse(document).get()) == nil)
        #expect((try? CampaignSpec.parse(document, ignoring: CampaignSpec.serverFields).get()) != nil)
    }

    @Test func analyticsLabelMustFitWithTheVariantKey() throws {
        let label = String(repeating: "l", count: 49)
        let found = try errors(of: """
            {"name": "n", "notification": {"body": "b"}, "topics": ["t"], "options": {"analytics_label": "\(label)"},
             "variants": [{"key": "A", "weight": 1}, {"key": "B", "weight": 1}]}
            """)
        #expect(found.map(\.path) == ["options.analytics_label", "options.analytics_label"])
        #expect(try errors(of: #"{"name": "n", "notification": {"body": "b"}, "topics": ["t"], "options": {"analytics_label": "a b"}}"#)
            .map(\.code) == ["invalid_label"])
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let failure) = self { failure } else { nil }
    }
}

@Suite struct DataKeyIdentityTests {
    /// FCM sees "café" composed and decomposed as two data keys; so does Herald.
    @Test func keysThatDifferOnlyInNormalizationAreTwoKeys() throws {
        let composed = "caf\u{e9}", decomposed = "cafe\u{301}"
        let json = try JSON.parse(Array(#"{"name": "n", "notification": {"title": "t", "body": "b"}, "topics": ["news"], "data": {"\#(composed)": "1", "\#(decomposed)": "2"}}"#.utf8))
        let spec = try CampaignSpec.parse(json).get()
        #expect(spec.data.count == 2)
        #expect(spec.data[composed] == "1" && spec.data[decomposed] == "2")
    }
}

@Suite struct ImageURLExtensionTests {
    static func parse(image: String) -> Result<CampaignSpec, ValidationErrors> {
        CampaignSpec.parse(["name": "n", "notification": ["title": "t", "body": "b", "image": .string(image)], "topics": ["news"]])
    }

    /// Apple reads an image's type from its URL's extension: one without is refused on save.
    @Test func anImageURLMustEndInItsFileExtension() throws {
        guard case .failure(let errors) = Self.parse(image: "https://cdn.example.com/banner?id=7") else { Issue.record("accepted"); return }
        #expect(errors.errors.first?.path == "notification.image")
        #expect(errors.errors.first?.code == "no_image_extension")
        #expect(errors.errors.first?.message.contains(".png, .jpg, .jpeg or .gif") == true)
        #expect((try? Self.parse(image: "https://cdn.example.com/a/banner.PNG?v=2#top").get()) != nil)
        #expect((try? Self.parse(image: "https://cdn.example.com/photo.jpeg").get()) != nil)
        guard case .failure = Self.parse(image: "https://cdn.example.com/archive.tar") else { Issue.record("accepted .tar"); return }
    }

    /// The extension is the path's, not the host's: a host ending in ".png" has no image path.
    @Test func aHostThatEndsLikeAnImageIsNoImagePath() {
        for image in ["https://foo.bar.pizza-monster.png", "https://foo.bar.pizza-monster.png?x=a.png", "https://cdn.example.png/"] {
            guard case .failure(let errors) = Self.parse(image: image) else { Issue.record("accepted \(image)"); continue }
            #expect(errors.errors.first?.code == "no_image_extension", "\(image)")
        }
        #expect((try? Self.parse(image: "https://foo.bar.pizza-monster.png/pizza.png").get()) != nil)
    }
}

@Suite struct OverrideShapeTests {
    static func errors(_ overrides: JSON) -> [FieldError] {
        guard case .failure(let errors) = CampaignSpec.parse(["name": "n", "notification": ["title": "t", "body": "b"], "topics": ["news"],
                                                              "options": ["overrides": overrides]]) else { return [] }
        return errors.errors
    }

    /// Shapes FCM checks only when it is sent are checked when the campaign is saved.
    @Test func knownOverrideShapesAreCheckedOnSave() {
        let light = Self.errors(["android": ["notification": ["light_settings": ["color": ["red": 2, "green": 0], "light_on_duration": "soon"]]]])
        let paths = Set(light.map(\.path))
        #expect(paths.contains("options.overrides.android.notification.light_settings.color.red"))
        #expect(paths.contains("options.overrides.android.notification.light_settings.color.blue"))
        #expect(paths.contains("options.overrides.android.notification.light_settings.light_on_duration"))
        #expect(paths.contains("options.overrides.android.notification.light_settings.light_off_duration"))
        #expect(Self.errors(["android": ["notification": ["event_time": "yesterday"]]]).first?.path == "options.overrides.android.notification.event_time")
        #expect(Self.errors(["apns": ["payload": ["aps": ["badge": "3"]]]]).first?.path == "options.overrides.apns.payload.aps.badge")
        #expect(Self.errors(["apns": ["payload": ["aps": ["mutable-content": true]]]]).first?.path == "options.overrides.apns.payload.aps.mutable-content")
        // Well-formed ones pass.
        #expect(Self.errors(["android": ["notification": [
            "light_settings": ["color": ["red": 1, "green": 0.5, "blue": 0], "light_on_duration": "0.5s", "light_off_duration": "1s"],
            "event_time": "2026-11-22T09:30:00.5+03:30"]],
            "apns": ["payload": ["aps": ["badge": 3, "mutable-content": 1]]]]).isEmpty)
    }
}

/// Refusals of what FCM or Apple would take otherwise than the marketer meant.
@Suite struct MeantAsWrittenTests {
    /// A variable in a data value would reach the app literally: refused, by its key.
    @Test func aVariableInADataValueIsRefusedByItsKey() {
        let campaign: JSON = ["name": "n", "notification": ["title": "Hi {{first_name | default: \"you\"}}"], "tokens": ["t-1"],
                              "data": ["greeting": "Hello {{first_name | default: \"you\"}}", "literal": "a {{ b"]]
        guard case .failure(let errors) = CampaignSpec.parse(campaign) else { Issue.record("accepted"); return }
        #expect(errors.errors.map(\.path) == ["data.greeting"])
        #expect(errors.errors.first?.code == "variables_in_data")
        #expect(errors.errors.first?.message.contains("{{first_name}} would reach the app literally") == true)
    }

    /// A background push (nothing to show) with an override asking Apple for priority 10 is
    /// refused where it is asked for; with a title to show, 10 is what an alert takes.
    @Test func priorityTenOnABackgroundPushIsRefused() {
        let overrides: JSON = ["apns": ["headers": ["apns-priority": "10"]]]
        let background: JSON = ["name": "n", "data": ["sync": "1"], "topics": ["news"], "options": ["overrides": overrides]]
        guard case .failure(let errors) = CampaignSpec.parse(background) else { Issue.record("accepted"); return }
        #expect(errors.errors.map(\.path) == ["options.overrides.apns.headers.apns-priority"])
        #expect(errors.errors.first?.code == "background_priority")
        let alert: JSON = ["name": "n", "notification": ["title": "Hi"], "topics": ["news"], "options": ["overrides": overrides]]
        #expect((try? CampaignSpec.parse(alert).get()) != nil)
    }
}

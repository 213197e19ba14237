import Foundation
import HeraldCore
import FCMMessage
import HeraldJSON
import Testing

/// Every REST example of the seeds (../shared/seeds), composed as a campaign and rendered: the
/// message must equal the seed's `message`, member by member and in the same order. The expected
/// JSON is the seed's, corrected where the seed is not valid JSON (a missing colon after
/// "notification" in 000's first example, trailing commas after `"apns-priority": "5"` and after
/// the image example's title). Deliberate differences are stated at each test.
@Suite struct SeedRenderingTests {
    static let sendTime = Date(timeIntervalSince1970: 1_700_000_000)

    func render(_ campaignJSON: String, to target: Target, key: String = "A") throws -> Message {
        let spec = try campaign(campaignJSON)
        let message = HeraldCore.render(campaign: spec, variantKey: key, target: target, campaignID: nil, sendTime: Self.sendTime)
        return exported(try #require(message))
    }

    /// Compares member by member (each differing path is its own failure), then the exact bytes.
    func expectSame(_ message: Message, _ expectedText: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try JSON.parse(expectedText)
        let actual = message.json()
        let actualPaths = flatten(actual), expectedPaths = flatten(expected)
        for path in Set(actualPaths.keys).union(expectedPaths.keys).sorted() where actualPaths[path] != expectedPaths[path] {
            Issue.record("\(path): rendered \(actualPaths[path].map { $0.serializedString() } ?? "nothing"), seed has \(expectedPaths[path].map { $0.serializedString() } ?? "nothing")",
                sourceLocation: sourceLocation)
        }
        #expect(actual.serializedString() == expected.serializedString(), sourceLocation: sourceLocation)
        // What is rendered must be a message FCM accepts, and decode back to itself.
        #expect(message.problems() == [], sourceLocation: sourceLocation)
        #expect(try Message.fromJSON(actual) == message, sourceLocation: sourceLocation)
    }

    // Seed 000, "notification message with platform-specific delivery options". The seed sets the
    // TTL for Android and the web only and a low priority for APNs only, so those per-platform
    // choices are overrides; the click action and iOS category are options.
    @Test func seed000PlatformSpecificDeliveryOptions() throws {
        let message = try render("""
            {"name": "Match update", "topics": ["matches"],
             "notification": {"title": "Match update", "body": "Arsenal goal in added time, score is now 3-0"},
             "options": {"click_action": "OPEN_ACTIVITY_1", "ios_category": "NEW_MESSAGE_CATEGORY",
                         "overrides": {"android": {"ttl": "86400s"}, "apns": {"headers": {"apns-priority": "5"}},
                                       "webpush": {"headers": {"TTL": "86400"}}}}}
            """, to: .token("bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1..."))
        try expectSame(message, """
            {"token": "bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1...",
             "notification": {"title": "Match update", "body": "Arsenal goal in added time, score is now 3-0"},
             "android": {"ttl": "86400s", "notification": {"click_action": "OPEN_ACTIVITY_1"}},
             "apns": {"headers": {"apns-priority": "5"}, "payload": {"aps": {"category": "NEW_MESSAGE_CATEGORY"}}},
             "webpush": {"headers": {"TTL": "86400"}}}
            """)
    }

    // The same example through the composer's own options, as a marketer would set it: expiry is
    // written to every platform, so APNs also gets `apns-expiration` (send time + 1 day), and a
    // "normal" priority is NORMAL on Android, "5" on APNs and `Urgency: normal` on the web.
    // These additions are deliberate: one idea, each platform's field.
    @Test func seed000DeliveryOptionsThroughTheComposerOptions() throws {
        let message = try render("""
            {"name": "Match update", "topics": ["matches"],
             "notification": {"title": "Match update", "body": "Arsenal goal in added time, score is now 3-0"},
             "options": {"click_action": "OPEN_ACTIVITY_1", "ios_category": "NEW_MESSAGE_CATEGORY",
                         "expiry_seconds": 86400, "priority": "normal"}}
            """, to: .token("bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1..."))
        try expectSame(message, """
            {"token": "bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1...",
             "notification": {"title": "Match update", "body": "Arsenal goal in added time, score is now 3-0"},
             "android": {"priority": "NORMAL", "ttl": "86400s", "notification": {"click_action": "OPEN_ACTIVITY_1"}},
             "apns": {"headers": {"apns-priority": "5", "apns-expiration": "1700086400"},
                      "payload": {"aps": {"category": "NEW_MESSAGE_CATEGORY"}}},
             "webpush": {"headers": {"TTL": "86400", "Urgency": "normal"}}}
            """)
    }

    // Seed 000, "notification message with color and icon options" (REST form).
    @Test func seed000ColorAndIcon() throws {
        let message = try render("""
            {"name": "FooCorp", "topics": ["industry-tech"],
             "notification": {"title": "`$FooCorp` up 1.43% on the day",
                              "body": "FooCorp gained 11.80 points to close at 835.67, up 1.43% on the day."},
             "options": {"icon": "stock_ticker_update", "color": "#7e55c3"}}
            """, to: .topic("industry-tech"))
        try expectSame(message, """
            {"topic": "industry-tech",
             "notification": {"title": "`$FooCorp` up 1.43% on the day",
                              "body": "FooCorp gained 11.80 points to close at 835.67, up 1.43% on the day."},
             "android": {"notification": {"icon": "stock_ticker_update", "color": "#7e55c3"}}}
            """)
    }

    // Seeds 000, 001, 003 and 004 share the image example. One deliberate difference: the seed's
    // `webpush.headers.image` is not a v1 field (Web Push headers are HTTP headers; FCM ignores
    // it), so Herald writes the web image where browsers read it, `webpush.notification.image`.
    @Test(arguments: ["000", "001", "003", "004"])
    func seedImage(seed: String) throws {
        let message = try render("""
            {"name": "Sparky", "topics": ["industry-tech"],
             "notification": {"title": "Sparky says hello!", "image": "https://foo.bar/pizza-monster.png"}}
            """, to: .topic("industry-tech"))
        try expectSame(message, """
            {"topic": "industry-tech",
             "notification": {"title": "Sparky says hello!"},
             "android": {"notification": {"image": "https://foo.bar/pizza-monster.png"}},
             "apns": {"payload": {"aps": {"mutable-content": 1}}, "fcm_options": {"image": "https://foo.bar/pizza-monster.png"}},
             "webpush": {"notification": {"image": "https://foo.bar/pizza-monster.png"}}}
            """)
    }

    // Seed 000, "notification message with an associated click action". Its REST example is cut
    // off in the seed, so the expected message is the Node example in REST spelling. Deliberate
    // difference: the seed's web link "breakingnews.html" is relative, and v1 requires an https
    // URL for `webpush.fcm_options.link`, so the link here is absolute.
    @Test func seed000ClickAction() throws {
        let message = try render("""
            {"name": "Breaking", "topics": ["industry-tech"], "notification": {"title": "Breaking News...."},
             "options": {"click_action": "news_intent", "ios_category": "INVITE_CATEGORY",
                         "web_link": "https://news.example.com/breakingnews.html"}}
            """, to: .topic("industry-tech"))
        try expectSame(message, """
            {"topic": "industry-tech",
             "notification": {"title": "Breaking News...."},
             "android": {"notification": {"click_action": "news_intent"}},
             "apns": {"payload": {"aps": {"category": "INVITE_CATEGORY"}}},
             "webpush": {"fcm_options": {"link": "https://news.example.com/breakingnews.html"}}}
            """)
    }

    // Seed 002: a notification message, a data message and a notification message with data.
    @Test func seed002Notification() throws {
        let message = try render("""
            {"name": "IM", "topics": ["im"], "notification": {"title": "Portugal vs. Denmark", "body": "great match!"}}
            """, to: .token("bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1..."))
        try expectSame(message, """
            {"token": "bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1...",
             "notification": {"title": "Portugal vs. Denmark", "body": "great match!"}}
            """)
    }

    @Test func seed002Data() throws {
        let message = try render("""
            {"name": "IM", "topics": ["im"], "data": {"Nick": "Mario", "body": "great match!", "Room": "PortugalVSDenmark"}}
            """, to: .token("bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1..."))
        try expectSame(message, """
            {"token": "bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1...",
             "data": {"Nick": "Mario", "body": "great match!", "Room": "PortugalVSDenmark"}}
            """)
    }

    @Test func seed002NotificationWithData() throws {
        let message = try render("""
            {"name": "IM", "topics": ["im"], "notification": {"title": "Portugal vs. Denmark", "body": "great match!"},
             "data": {"Nick": "Mario", "Room": "PortugalVSDenmark"}}
            """, to: .token("bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1..."))
        try expectSame(message, """
            {"token": "bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1...",
             "notification": {"title": "Portugal vs. Denmark", "body": "great match!"},
             "data": {"Nick": "Mario", "Room": "PortugalVSDenmark"}}
            """)
    }
}

/// Every leaf of a JSON value by its path ("android.notification.color").
func flatten(_ value: JSON, at path: String = "") -> [String: JSON] {
    guard let object = value.objectValue, !object.isEmpty else { return [path: value] }
    var result: [String: JSON] = [:]
    for (key, member) in object {
        result.merge(flatten(member, at: path.isEmpty ? key : "\(path).\(key)")) { $1 }
    }
    return result
}

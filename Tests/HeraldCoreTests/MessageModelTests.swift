import Foundation
import FCMMessage
import HeraldJSON
import Testing

@Suite struct MessageModelTests {
    static let full = """
        {"topic":"news","notification":{"title":"T","body":"B","image":"https://x.example/a.png"},"data":{"k":"v"},\
        "android":{"collapse_key":"c","priority":"HIGH","ttl":"3.5s","restricted_package_name":"com.example",\
        "data":{"a":"1"},"notification":{"title":"t","icon":"ic","color":"#aabbcc","sound":"default","tag":"g",\
        "click_action":"OPEN","channel_id":"ch","notification_priority":"PRIORITY_HIGH","visibility":"PUBLIC",\
        "notification_count":2,"image":"https://x.example/b.png"},"fcm_options":{"analytics_label":"l"},"direct_boot_ok":true},\
        "apns":{"headers":{"apns-priority":"10","apns-expiration":"1700000000"},"payload":{"aps":{"mutable-content":1,"badge":1},"x":"y"},\
        "fcm_options":{"analytics_label":"l","image":"https://x.example/c.png"}},\
        "webpush":{"headers":{"TTL":"60","Urgency":"high"},"data":{"w":"1"},"notification":{"image":"https://x.example/d.png","dir":"rtl"},\
        "fcm_options":{"link":"https://example.com","analytics_label":"l"}},"fcm_options":{"analytics_label":"label"}}
        """

    @Test func decodesAndEncodesEveryFieldInRESTSpelling() throws {
        let message = try Message.fromJSON(try JSON.parse(Self.full))
        #expect(message.target == .topic("news"))
        #expect(message.android?.ttl == ProtoDuration(seconds: 3, nanos: 500_000_000))
        #expect(message.android?.priority == .high)
        #expect(message.apns?.aps["mutable-content"] == 1)
        #expect(message.webpush?.link == "https://example.com")
        #expect(message.json().serializedString() == Self.full)
        #expect(message.problems() == [])
    }

    @Test func sendBodyWrapsTheMessage() throws {
        let message = Message(target: .token("t"), notification: .init(title: "hi"))
        let body = try JSON.parse(message.sendBody(validateOnly: true))
        #expect(body == ["message": ["token": "t", "notification": ["title": "hi"]], "validate_only": true])
        #expect(String(decoding: message.sendBody(validateOnly: false), as: UTF8.self)
            == #"{"message":{"token":"t","notification":{"title":"hi"}},"validate_only":false}"#)
    }

    @Test func codableThroughFoundationUsesTheSameNames() throws {
        let message = try Message.fromJSON(try JSON.parse(Self.full))
        let data = try JSONEncoder().encode(message)
        #expect(try JSON.parse(Array(data)) == message.json())
        #expect(try JSONDecoder().decode(Message.self, from: data) == message)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Message.self, from: Data(#"{"topic":"a","colour":1}"#.utf8)) }
    }

    @Test func decodingIsStrictAndReportsEveryProblem() throws {
        let input = try JSON.parse("""
            {"topic": "a", "token": "b", "andriod": {}, "android": {"priority": "URGENT", "ttl": "1d", "notification": {"color": 5}},
             "apns": {"headers": {"apns-priority": 10}}, "webpush": {"fcm_options": {"url": "x"}}}
            """)
        #expect {
            try Message.fromJSON(input)
        } throws: { error in
            let issues = (error as? MessageFormatError)?.issues.map { "\($0.path) \($0.code)" } ?? []
            return Set(issues) == [
                " conflict", "andriod unknown_field", "android.priority invalid_value", "android.ttl invalid_duration",
                "android.notification.color wrong_type", "apns.headers.apns-priority wrong_type",
                "webpush.fcm_options.url unknown_field",
            ]
        }
    }

    @Test func problemsFollowFCMsRules() throws {
        var message = Message(target: .condition("'a' in topics && 'b c' in topics"))
        message.data = ["gcm.notification.x": "1", "ok": "2"]
        message.android = AndroidConfig(ttl: ProtoDuration(seconds: 2_419_201), notification: AndroidNotification(color: "#12345"))
        message.webpush = WebpushConfig(headers: ["Urgency": "asap"], link: "http://example.com")
        message.fcmOptions = .init(analyticsLabel: String(repeating: "x", count: 51))
        let codes = Set(message.problems().map { "\($0.path) \($0.code)" })
        #expect(codes == [
            "condition invalid_condition", "data.gcm.notification.x reserved_key", "android.ttl out_of_range",
            "android.notification.color invalid_color", "webpush.headers.Urgency invalid_value",
            "webpush.fcm_options.link not_https", "fcm_options.analytics_label invalid_label",
        ])
    }

    @Test func payloadLimitDependsOnTheTarget() throws {
        let body = String(repeating: "x", count: 2100)
        let topic = Message(target: .topic("news"), notification: .init(body: body))
        #expect(topic.problems().map(\.code) == ["payload_too_large"])
        #expect(topic.problems().first?.limit == 2048)
        let token = Message(target: .token("t"), notification: .init(body: body))
        #expect(token.problems() == [])
        // The target is not counted: the size is that of the message without it.
        #expect(topic.payloadSize == #"{"notification":{"body":""}}"#.utf8.count + 2100)
    }

    @Test(arguments: [("86400s", 86400, 0), ("3.5s", 3, 500_000_000), ("0.000000001s", 0, 1)])
    func durationsRoundTrip(text: String, seconds: Int64, nanos: Int32) {
        let duration = ProtoDuration(text)
        #expect(duration == ProtoDuration(seconds: seconds, nanos: nanos))
        #expect(duration?.description == text)
    }

    @Test(arguments: ["86400", "1.s", "-1s", "1.0000000001s", "s", "1e3s"])
    func malformedDurationsAreRefused(text: String) {
        #expect(ProtoDuration(text) == nil)
    }
}

/// The v1 fields of the current discovery document are known: the `fid` target beside `token`,
/// and Android's `bandwidth_constrained_ok` and `restricted_satellite_ok`.
@Suite struct CurrentV1FieldsTests {
    @Test func fidAndTheNewAndroidFlagsRoundTrip() throws {
        let json: JSON = ["fid": "cAbC123", "data": ["k": "v"],
                          "android": ["bandwidth_constrained_ok": true, "restricted_satellite_ok": false, "direct_boot_ok": true]]
        let message = try Message.fromJSON(json)
        #expect(message.target == .fid("cAbC123"))
        #expect(message.payloadLimit == Message.tokenPayloadLimit)
        #expect(message.problems() == [])
        #expect(message.json() == json)
        #expect(throws: (any Error).self) { try Message.fromJSON(["fid": "a", "token": "b"]) }
    }
}

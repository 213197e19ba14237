import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import Testing

/// A Live Activity campaign (`live_activity`): read and refused by path, rendered as FCM documents
/// the request ("Send Live Activity updates"), and planned only for iOS devices with an activity token.
@Suite struct LiveActivityCampaignTests {
    static let fcmToken = "fcm-token-1:APA91b" + String(repeating: "t", count: 100)
    static let activityToken = String(repeating: "ab", count: 32)
    static let sendTime = Date(timeIntervalSince1970: 1_764_240_000.6)

    static func document(_ activity: String, audience: String = #""tokens": ["\#(fcmToken)"]"#, more: String = "") -> String {
        #"{"name": "Match", \#(audience), "live_activity": \#(activity)\#(more)}"#
    }

    static let update = #"{"event": "update", "content_state": {"score": "2-1", "minute": 67}}"#

    func codes(_ text: String) throws -> [String: String] {
        Dictionary(try errors(of: text).map { ($0.path, $0.code) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func aLiveActivityNeedsNoNotificationAndRoundTrips() throws {
        let spec = try campaign(Self.document(#"{"event": "end", "content_state": {"score": "3-1"}, "dismissal_date": "2026-11-27T18:00:00Z"}"#))
        #expect(spec.liveActivity == LiveActivity(event: .end, contentState: ["score": "3-1"], dismissalDate: Date(timeIntervalSince1970: 1_795_802_400)))
        #expect(CampaignSpec.parse(spec.toJSON()) == .success(spec))
    }

    @Test func eachMistakeIsRefusedAtItsPath() throws {
        #expect(try codes(Self.document(Self.update, audience: #""topics": ["news"]"#)) == ["live_activity": "needs_devices"])
        #expect(try codes(Self.document(#"{"event": "start", "content_state": {}}"#)) == ["live_activity.event": "invalid_value"])
        #expect(try codes(Self.document(#"{"event": "update"}"#)) == ["live_activity.content_state": "required"])
        #expect(try codes(Self.document(#"{"event": "update", "content_state": [1]}"#)) == ["live_activity.content_state": "wrong_type"])
        #expect(try codes(Self.document(#"{"event": "update", "content_state": {}, "dismissal_date": "2026-11-27T18:00:00Z"}"#))
                == ["live_activity.dismissal_date": "end_only"])
        #expect(try codes(Self.document(#"{"event": "end", "content_state": {}, "dismissal_date": "tomorrow"}"#))
                == ["live_activity.dismissal_date": "invalid_value"])
        #expect(try codes(Self.document(#"{"event": "update", "content_state": {"fan": {"name": "{{first_name}}"}}}"#))
                == ["live_activity.content_state.fan.name": "missing_default"])
        #expect(try codes(Self.document(#"{"event": "update", "content_state": {}, "surprise": 1}"#)) == ["live_activity.surprise": "unknown_field"])
        // What a Live Activity does not show is refused, not dropped unseen.
        let ignored = try codes(Self.document(Self.update, more: ##", "data": {"k": "v"}, "notification": {"title": "Goal", "image": "https://x.example/a.png"}, "options": {"ios_badge": 3, "color": "#ff0000", "sound": "ding"}"##))
        #expect(ignored == ["data": "not_with_live_activity", "notification.image": "not_with_live_activity",
                            "options.ios_badge": "not_with_live_activity", "options.color": "not_with_live_activity"])
        #expect(try codes(Self.document(Self.update, more: #", "options": {"overrides": {"apns": {"headers": {"apns-push-type": "alert"}}}}"#))
                == ["options.overrides.apns.headers.apns-push-type": "not_with_live_activity"])
        // A sound plays only with an alert.
        #expect(try codes(Self.document(Self.update, more: #", "options": {"ios_sound": "goal.caf"}"#)) == ["options.ios_sound": "not_with_live_activity"])
    }

    @Test func aContentStateOverFCMsLimitIsRefusedThere() throws {
        let big = String(repeating: "x", count: 4_200)
        let found = try errors(of: Self.document(#"{"event": "update", "content_state": {"log": "\#(big)"}}"#))
        #expect(found.map(\.path) == ["live_activity.content_state"] && found.first?.code == "payload_too_large", "\(found)")
    }

    /// FCM's documented request, member for member: the token, the activity's token, the
    /// `liveactivity` push type, priority 10, and an `aps` of timestamp, event, content-state and
    /// alert; no notification, no other platform, no background push.
    @Test func rendersFCMsDocumentedLiveActivityRequest() throws {
        let spec = try campaign(Self.document(Self.update, more: #", "notification": {"title": "Goal!", "body": "2-1 at 67'"}"#))
        let message = exported(Renderer.render(campaign: spec, variant: spec.effectiveVariants[0], target: .token(Self.fcmToken), campaignID: nil,
                                               sendTime: Self.sendTime, liveActivityToken: Self.activityToken))
        #expect(message.problems() == [])
        let expected: JSON = [
            "token": .string(Self.fcmToken),
            "apns": [
                "headers": ["apns-push-type": "liveactivity", "apns-priority": "10"],
                "payload": ["aps": ["timestamp": 1_764_240_000, "event": "update", "content-state": ["score": "2-1", "minute": 67],
                                    "alert": ["title": "Goal!", "body": "2-1 at 67'"]]],
                "live_activity_token": .string(Self.activityToken),
            ],
        ]
        #expect(message.json() == expected, "\(message.json().prettyString())")
    }

    @Test func anEndCarriesItsDismissalDateAndNormalPriorityIsFive() throws {
        let spec = try campaign(Self.document(#"{"event": "end", "content_state": {"score": "3-1"}, "dismissal_date": "2026-11-27T18:00:00Z"}"#,
                                              more: #", "options": {"priority": "normal", "expiry_seconds": 600}"#))
        let json = exported(Renderer.render(campaign: spec, variant: spec.effectiveVariants[0], target: .token(Self.fcmToken), campaignID: "c1",
                                            sendTime: Self.sendTime, liveActivityToken: Self.activityToken)).json()
        #expect(json["apns"]?["headers"] == ["apns-push-type": "liveactivity", "apns-priority": "5", "apns-expiration": "1764240600"])
        #expect(json["apns"]?["payload"]?["aps"] == ["timestamp": 1_764_240_000, "event": "end", "content-state": ["score": "3-1"],
                                                      "dismissal-date": 1_795_802_400])
        #expect(json["notification"] == nil && json["android"] == nil && json["webpush"] == nil && json["data"] == nil)
        #expect(json["fcm_options"]?["analytics_label"] == "herald-c1-A")
    }

    @Test func plansOnlyIOSDevicesWithAnActivityTokenEachTheirOwn() throws {
        let spec = try campaign(Self.document(#"{"event": "update", "content_state": {"score": "2-1", "seat": "{{seat | default: \"-\"}}"}}"#,
                                              more: #", "notification": {"title": "Hi {{first_name | default: \"fan\"}}"}"#))
        let planner = DevicePlanner(campaign: spec, campaignID: "c1", sendTime: Self.sendTime)
        let ana = Device(token: "tok-ana", platform: .ios, properties: ["first_name": "Ana", "seat": "B12"], liveActivityToken: Self.activityToken)
        let other = Device(token: "tok-bo", platform: .ios, liveActivityToken: String(repeating: "cd", count: 32))
        let request = try #require(planner.request(for: ana))
        let body = try JSON.parse(try #require(request.body))
        #expect(body["token"] == "tok-ana" && body["apns"]?["live_activity_token"] == .string(Self.activityToken))
        #expect(body["apns"]?["payload"]?["aps"]?["alert"]?["title"] == "Hi Ana")
        // The content state's variables too, each device its own.
        #expect(body["apns"]?["payload"]?["aps"]?["content-state"] == ["score": "2-1", "seat": "B12"])
        // Each device's own activity token, and the bytes the renderer gives for it.
        let full = Renderer.render(campaign: spec, variant: spec.effectiveVariants[0].personalized(for: other), target: other.target,
                                   campaignID: "c1", sendTime: Self.sendTime, liveActivityToken: other.liveActivityToken)
        #expect(planner.request(for: other)?.body == full.json().serializedString())
        // Without variables in the content state, the prepared message gives the same bytes.
        let plainState = try campaign(Self.document(Self.update, more: #", "notification": {"title": "Hi {{first_name | default: \"fan\"}}"}"#))
        let prepared = DevicePlanner(campaign: plainState, campaignID: "c1", sendTime: Self.sendTime)
        let rendered = Renderer.render(campaign: plainState, variant: plainState.effectiveVariants[0].personalized(for: ana), target: ana.target,
                                       campaignID: "c1", sendTime: Self.sendTime, liveActivityToken: ana.liveActivityToken)
        #expect(prepared.request(for: ana)?.body == rendered.json().serializedString())
        // No activity to update: nothing, as for a device in the holdout.
        #expect(planner.request(for: Device(token: "tok-cy", platform: .ios)) == nil)
        #expect(planner.request(for: Device(token: "tok-dee", platform: .android)) == nil)
        #expect(!planner.reaches(Device(token: "tok-cy", platform: .ios)))
        // A campaign that is not a Live Activity reaches every device as before.
        let plain = try campaign(#"{"name": "n", "tokens": ["\#(Self.fcmToken)"], "notification": {"title": "Hi"}}"#)
        #expect(DevicePlanner(campaign: plain, campaignID: "c1", sendTime: Self.sendTime).request(for: Device(token: "tok-dee", platform: .android)) != nil)
    }

    /// A stored request sent later says when it was sent: its timestamp moves on with its expiry.
    @Test func theTimestampMovesOnToTheSend() throws {
        let spec = try campaign(Self.document(Self.update, more: #", "options": {"expiry_seconds": 60}"#))
        let body = Renderer.render(campaign: spec, variant: spec.effectiveVariants[0], target: .token(Self.fcmToken), campaignID: nil,
                                   sendTime: Self.sendTime, liveActivityToken: Self.activityToken).json().serialized()
        let later = try JSON.parse(APNSExpiration.rebased(body, by: 90))
        #expect(later["apns"]?["payload"]?["aps"]?["timestamp"] == 1_764_240_090)
        #expect(later["apns"]?["headers"]?["apns-expiration"] == "1764240150")
        #expect(APNSExpiration.rebased(body, by: 0) == body)
    }

    @Test func aDevicesActivityTokenIsIOSHexOfASaneLength() throws {
        func problems(_ token: String, platform: String = "ios") -> [FieldError] {
            guard case .failure(let errors) = Device.parse(["token": "tok-1", "platform": .string(platform), "live_activity_token": .string(token)]) else { return [] }
            return errors.errors
        }
        guard case .success(let device) = Device.parse(["token": "tok-1", "platform": "ios", "live_activity_token": .string(Self.activityToken.uppercased())]) else {
            Issue.record("refused")
            return
        }
        #expect(device.liveActivityToken == Self.activityToken)
        #expect(problems(Self.activityToken, platform: "android").first?.message.contains("only iOS") == true)
        #expect(problems("not-hex-at-all-but-long-enough-0123456789").map(\.path) == ["live_activity_token"])
        #expect(problems("abc").map(\.code) == ["invalid_value"])
        #expect(problems(String(repeating: "ab", count: 16)).isEmpty)
        #expect(problems(String(repeating: "ab", count: 101)).map(\.code) == ["too_long"])
        // A CSV column of its own, exported and imported back.
        let header = DeviceCSVLayout.exportHeader(properties: [])
        let layout = try DeviceCSVLayout.header(header).get()
        let fields = DeviceCSVLayout.exportRow(device, properties: []).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(Device.parse(layout.document(fields)) == .success(device))
    }
}

import Foundation
import HeraldCore
import HeraldTestSupport
import HeraldHTTP
import HeraldJSON
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// A Live Activity from the browser: devices registered with their activity's token over the API,
/// the composer's Live Activity fields kept through a failed save, the `aps` previewed from the
/// form without JavaScript, and the campaign saved, read back over the API and reviewed.
@Suite(.serialized) final class ComposerLiveActivityTests {
    let sink: EmulatorSink
    let browser: PagesBrowser

    init() throws {
        sink = try EmulatorSink()
        browser = try PagesBrowser(environment: sink.environment)
    }

    static func token(_ index: Int) -> String { "device-\(index):APA91b" + String(repeating: "k", count: 120) }
    static let activity = String(repeating: "9f", count: 32)
    static let form = "enctype=\"multipart/form-data\" novalidate"

    static func fields(_ overrides: [(String, String)]) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("name", "Final score"), ("message_kind", "live_activity"), ("title", "Full time"), ("body", "{{first_name | default: \"Fans\"}}, it ends 3-1"),
            ("target_kind", "tokens"), ("tokens", token(1) + "\n" + token(2)), ("schedule_kind", "none"), ("time_zone", "UTC"),
            ("live_activity_event", "end"), ("live_activity_state", #"{"score": "3-1"}"#), ("live_activity_dismissal", "2026-11-27T18:00:00Z"),
        ]
        for (name, value) in overrides {
            fields.removeAll { $0.name == name }
            fields.append((name, value))
        }
        return fields
    }

    @Test(.timeLimit(.minutes(2)))
    func aLiveActivityIsComposedPreviewedKeptThroughErrorsAndReviewed() async throws {
        let herald = browser.harness.herald
        // The registry: an iOS device with its activity token, one without, and an Android one refused it by name.
        let registered = try await herald.request("PUT", "/api/v1/devices/\(Self.token(1))", json: ["platform": "ios", "live_activity_token": .string(Self.activity)])
        #expect(registered.status == 201)
        #expect(registered.json?["live_activity_token"] == .string(Self.activity))
        #expect(try await herald.request("PUT", "/api/v1/devices/\(Self.token(2))", json: ["platform": "ios"]).status == 201)
        let android = try await herald.request("PUT", "/api/v1/devices/\(Self.token(3))", json: ["platform": "android", "live_activity_token": .string(Self.activity)])
        #expect(android.status == 422 || android.status == 400)
        let refusal = String(decoding: android.data, as: UTF8.self)
        #expect(refusal.contains("live_activity_token") && refusal.contains("only iOS"), "\(refusal)")
        #expect(browser.get("/devices").text.contains(Self.activity))

        // A content state that is not JSON, and a badge a Live Activity does not show: each error
        // beside its field, every field as typed, and no preview until the state is JSON.
        let typedState = #"{"score": 3-1}"#
        let failed = browser.post("/campaigns", Self.fields([("live_activity_state", typedState), ("ios_badge", "3")]))
        #expect(failed.status == 422)
        let kept = FormScraper.fields(failed.text, form: Self.form)
        func value(_ name: String) -> String? { kept.first { $0.name == name }?.value }
        #expect(value("message_kind") == "live_activity" && value("live_activity_event") == "end")
        #expect(value("live_activity_state") == typedState && value("live_activity_dismissal") == "2026-11-27T18:00:00Z")
        #expect(value("ios_badge") == "3" && value("title") == "Full time")
        let stateField = try #require(failed.text.range(of: "id=\"field-live_activity_state\""))
        let notJSON = try #require(failed.text.range(of: "not JSON", range: stateField.upperBound..<failed.text.endIndex))
        #expect(!failed.text[stateField.upperBound..<notJSON.lowerBound].contains("id=\"field-live_activity_dismissal\""))
        #expect(failed.text.contains("Write the content state as a JSON object to see it."))
        let badgeField = try #require(failed.text.range(of: "id=\"field-ios_badge\""))
        #expect(failed.text[badgeField.upperBound...].prefix(600).contains("ios_badge has no effect there"), "the badge's error beside it")

        // The same form fixed: saved, the aps previewed from it on the server.
        let saved = browser.post("/campaigns", Self.fields([]))
        #expect(saved.status == 200)
        #expect(saved.text.contains("What each activity receives (aps)"))
        for member in ["&quot;event&quot;: &quot;end&quot;", "&quot;content-state&quot;", "&quot;dismissal-date&quot;: 1795802400", "&quot;title&quot;: &quot;Full time&quot;", "&quot;body&quot;: &quot;Fans, it ends 3-1&quot;"] {
            #expect(saved.text.contains(member), "the preview lacks \(member)")
        }
        let list = try await herald.request("GET", "/api/v1/campaigns")
        let campaign = try #require(list.json?["items"]?.arrayValue?.first)
        #expect(campaign["live_activity"]?["event"] == "end")
        #expect(campaign["live_activity"]?["content_state"] == ["score": "3-1"])
        #expect(campaign["live_activity"]?["dismissal_date"]?.stringValue?.hasPrefix("2026-11-27T18:00:00") == true)
        let id = try #require(campaign["id"]?.stringValue)
        // Edited again, the form shows what was saved.
        let again = FormScraper.fields(browser.get("/campaigns/\(id)/edit").text, form: Self.form)
        #expect(again.first { $0.name == "message_kind" }?.value == "live_activity")
        #expect(again.first { $0.name == "live_activity_dismissal" }?.value == "2026-11-27T18:00:00Z")

        // The review shows the aps, and that one device of the two has an activity to update.
        let review = browser.get("/campaigns/\(id)/review").text
        #expect(review.contains("&quot;event&quot;: &quot;end&quot;"))
        #expect(review.contains("(iOS, with an activity token), 1 now"), "\(review.components(separatedBy: "contact-reach").dropFirst().first?.prefix(300) ?? "no reach line")")

        // A test reaches a registered device's activity; one without an activity token is refused by its line, nothing sent.
        let refused = browser.post("/campaigns/\(id)/test", [("tokens", Self.token(1) + "\n" + Self.token(2))])
        #expect(refused.text.contains("the device on line 2 is not registered with a live_activity_token"), "\(refused.status)")
        #expect(sink.emulator.messages().isEmpty)
        let tested = browser.post("/campaigns/\(id)/test", [("tokens", Self.token(1))])
        #expect(tested.status == 200)
        let sent = try #require(sink.emulator.messages().first?.message)
        #expect(sent["token"] == .string(Self.token(1)) && sent["apns"]?["live_activity_token"] == .string(Self.activity))
        #expect(sent["apns"]?["payload"]?["aps"]?["event"] == "end" && sent["notification"] == nil)

        // As a one-call send's template: the device without an activity token is answered failed, with why.
        let oneCall = try await herald.request("POST", "/api/v1/sends", json: ["campaign": .string(id), "to": [["token": .string(Self.token(1))], ["token": .string(Self.token(2))]]],
                                               headers: ["Idempotency-Key": "final-whistle"])
        #expect(oneCall.status == 202, "\(oneCall.json as Any)")
        let recipients = oneCall.json?["recipients"]?.arrayValue ?? []
        #expect(recipients.map { $0["status"]?.stringValue } == ["pending", "failed"])
        #expect(recipients.last?["error"]?.stringValue?.contains("no Live Activity to update") == true, "\(recipients)")
    }
}

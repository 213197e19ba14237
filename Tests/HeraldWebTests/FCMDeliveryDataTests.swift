import FCMEmulator
import Foundation
import HeraldCore
import HeraldHTTP
import HeraldJSON
import HeraldTestSupport
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// FCM's own delivery figures end to end: a campaign of three variants sent to Android devices,
/// the emulator's Data API read, and the report's figures per variant equal to what the emulator
/// says it delivered.
@Suite(.serialized) struct FCMDeliveryDataTests {
    /// A 503 and a 429 from the Data API are passing trouble: the refresh tries again after what
    /// each asked (Retry-After: 1) and answers with the figures, not an error.
    @Test(.timeLimit(.minutes(2)))
    func aRefreshTriesAgainAfterA503AndA429() async throws {
        let app = "1:1234567890:android:0a1b2c3d4e5f"
        let sink = try EmulatorSink { $0.dataAPIFailingCalls = 2 }
        let herald = try TestHerald(environment: sink.environment.merging(["HERALD_FCM_ANDROID_APPS": app, "HERALD_SCHEDULER": "false"]) { $1 })
        let started = ContinuousClock.now
        let refreshed = try await herald.request("POST", "/api/v1/delivery-data/refresh")
        #expect(refreshed.status == 200 && refreshed.json?["apps"] == [.string(app)], "\(refreshed.json as Any)")
        #expect(sink.emulator.dataAPICallCount() == 3, "a 503, a 429, then the page")
        #expect(started.duration(to: .now) >= .seconds(2), "each retry waited the second FCM asked")
    }

    @Test(.timeLimit(.minutes(3)))
    func theReportShowsPerVariantWhatTheDataAPISaysFCMDelivered() async throws {
        let app = "1:1234567890:android:0a1b2c3d4e5f"
        let sink = try EmulatorSink { configuration in
            configuration.androidAppID = "1:000:android:other"  // messages it cannot attribute are another app's
            var shares = DeliveryShares()
            shares.pending = 0.1
            shares.droppedDeviceInactive = 0.15
            shares.droppedAppForceStopped = 0.05
            configuration.deliveryShares = shares
            for index in 0..<300 { configuration.androidAppsByToken["android-\(index)"] = app }
        }
        let browser = try PagesBrowser(role: .admin, environment: sink.environment)
        let herald = browser.harness.herald
        _ = try herald.server.application.database.pool.withConnection { connection in
            try DeviceStore().upsert((0..<300).map { Device(token: "android-\($0)", platform: .android, appID: app) }, on: connection)
        }
        let segment = try #require(try await herald.request("POST", "/api/v1/segments", json: [
            "name": "Android", "rule": ["all": [["field": "platform", "equals": "android"]]]]).json?["id"]?.stringValue)
        let id = try #require(try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Three ways", "notification": ["title": "Hello", "body": "Open me"], "segment": .string(segment),
            "variants": [["key": "A", "weight": 1], ["key": "B", "weight": 1, "notification": ["title": "Hi"]],
                         ["key": "C", "weight": 1, "notification": ["title": "Hey"]]]]).json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(id)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"]?.stringValue == "sent"
        })
        // Nothing read yet: the report says so.
        #expect(browser.get("/campaigns/\(id)/report").text.contains("FCM has reported nothing for this campaign"))

        let refreshed = try await herald.request("POST", "/api/v1/delivery-data/refresh")
        #expect(refreshed.status == 200, "\(refreshed.json as Any)")
        #expect(refreshed.json?["apps"] == [.string(app)])  // found from the registry

        let report = try #require(try await herald.request("GET", "/api/v1/campaigns/\(id)/report").json)
        let tallies = sink.emulator.deliveryTallies()
        var total = 0
        for key in ["A", "B", "C"] {
            let label = "herald-\(id)-\(key)"
            let emulator = try #require(tallies.first { $0.key.app == app && $0.key.label == label }?.value, "the emulator has \(label)")
            let line = try #require(report["variants"]?.arrayValue?.first { $0["key"]?.stringValue == key }?["fcm_delivery"])
            #expect(line["accepted"]?.intValue == emulator.accepted && emulator.accepted > 50)
            for outcome in ["delivered", "pending", "droppedDeviceInactive", "droppedAppForceStopped", "droppedTtlExpired"] {
                #expect(line["outcomes"]?[outcome]?.intValue == emulator.outcomes[outcome] ?? 0, "\(key) \(outcome)")
            }
            // Every other figure FCM gives, as a count of what its percent is of: the delivered
            // ones' delays and the lowered priorities of the messages, the proxied notifications
            // of the notifications (the emulator gives the same percents every row).
            let other = DeliveryShares().otherPercents
            for (api, group, of) in [("delivery_performance", "deliveryPerformancePercents", emulator.accepted),
                                     ("message_insights", "messageInsightPercents", emulator.accepted),
                                     ("proxy_notifications", "proxyNotificationInsightPercents", emulator.notifications)] {
                for (figure, percent) in other[group] ?? [:] {
                    #expect(line[api]?[figure]?.intValue == Int((Double(of) * percent / 100).rounded()), "\(key) \(api).\(figure)")
                }
            }
            #expect(line["notifications_accepted"]?.intValue == emulator.notifications && emulator.notifications > 0)
            #expect(line["first_day"]?.stringValue != nil)
            total += emulator.accepted
        }
        #expect(total == 300)
        #expect(report["fcm_delivery"]?["scope"]?.stringValue?.contains("share usage and diagnostics data") == true)

        // The page shows the same, per variant, with what the figures cover.
        let page = browser.get("/campaigns/\(id)/report").text
        #expect(page.contains("What FCM delivered (Android)") && page.contains("Android devices that share usage and diagnostics data only"))
        // A figure a row, a variant a column: B's delivered, and B's delayed by doze (5 % of what it accepted).
        let b = try #require(tallies.first { $0.key.label == "herald-\(id)-B" }?.value)
        let row = { (name: String) in page.split(separator: "<tr>").first { $0.hasPrefix("<th scope=\"row\">\(name)</th>") }.map(String.init) ?? "" }
        #expect(row("Delivered").contains("<td data-label=\"Variant B\">\(b.outcomes["delivered"] ?? -1)</td>"), "\(row("Delivered"))")
        #expect(row("Delayed: device dozing").contains("<td data-label=\"Variant B\">\(Int((Double(b.accepted) * 5 / 100).rounded()))</td>"),
                "\(row("Delayed: device dozing"))")
        for heading in ["What became of the messages", "Insights", "Notifications shown by Google Play services"] {
            #expect(page.contains("<th scope=\"colgroup\" colspan=\"4\">\(heading)"), "\(heading)")
        }
        // A publisher reads the figures on demand from the page too.
        let again = browser.post("/campaigns/\(id)/fcm-delivery", [])
        #expect(again.status == 200 && again.text.contains("rows of FCM&#39;s figures for 1 apps") || again.text.contains("rows of FCM's figures for 1 apps"))
        print("FCM Data API: 300 Android devices, 3 variants; per variant accepted/delivered as the emulator says: "
              + ["A", "B", "C"].map { key in
                  let tally = tallies.first { $0.key.label == "herald-\(id)-\(key)" }?.value
                  return "\(key) \(tally?.accepted ?? 0)/\(tally?.outcomes["delivered"] ?? 0)"
              }.joined(separator: ", "))
    }
}

import HeraldTestSupport
import Foundation
import HeraldJSON
import Testing

/// A test send's answers keep the registry clean too: a registered device that FCM answers
/// UNREGISTERED is marked invalid, as a campaign's answer would mark it.
@Suite(.serialized) struct TestSendHygieneTests {
    @Test(.timeLimit(.minutes(5)))
    func aTestSendsUnregisteredMarksTheRegisteredDeviceInvalid() async throws {
        let gone = "uninstalled:" + String(repeating: "u", count: 140), alive = "installed:" + String(repeating: "i", count: 140)
        let sink = try EmulatorSink(unregistered: [gone])
        let herald = try TestHerald(environment: sink.environment.merging(["HERALD_SCHEDULER": "false"]) { _, new in new })
        for token in [gone, alive] {
            #expect(try await herald.request("PUT", "/api/v1/devices/\(token)", json: ["platform": "android"]).status == 201)
        }
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Try it", topics: ["news"]))
        let id = try #require(created.json?["id"]?.stringValue)
        let sent = try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["tokens": [.string(gone), .string(alive)]])
        #expect(sent.json?["results"]?.arrayValue?.map { $0["status"] } == ["failed", "sent"])
        let device = try await herald.request("GET", "/api/v1/devices/\(gone)")
        #expect(device.json?["status"] == "invalid")
        #expect(device.json?["invalid_reason"]?.stringValue?.hasPrefix("UNREGISTERED") == true)
        #expect(try await herald.request("GET", "/api/v1/devices/\(alive)").json?["status"] == "active")
    }
}

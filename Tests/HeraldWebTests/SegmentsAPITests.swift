import Foundation
import HeraldJSON
import Testing

/// `/api/v1/segments` and `/api/v1/segment-reach` refusing a rule: the problem names the segment
/// or the rule (it once said "The device is not valid") and the field at fault.
@Suite(.serialized) final class SegmentsAPITests {
    let herald: TestHerald

    init() throws {
        herald = try TestHerald(environment: ["HERALD_SCHEDULER": "false"])
    }

    @Test func aBadRuleIsRefusedAsTheSegmentsOrTheRulesNotTheDevices() async throws {
        let bad: JSON = ["all": [["field": "planet", "equals": "Mars"]]]
        let created = try await herald.request("POST", "/api/v1/segments", json: ["name": "Martians", "rule": bad])
        #expect(created.status == 422)
        #expect(created.json?["title"] == "The segment is not valid")
        #expect(created.json?["errors"]?.arrayValue?.first?["path"]?.stringValue?.hasPrefix("rule") == true, "\(created.json ?? .null)")
        #expect(try await herald.request("GET", "/api/v1/segments").json?["items"]?.arrayValue?.isEmpty == true)

        let reach = try await herald.request("POST", "/api/v1/segment-reach", json: ["rule": bad])
        #expect(reach.status == 422)
        #expect(reach.json?["title"] == "The rule is not valid")
        #expect(reach.json?["errors"]?.arrayValue?.first?["path"]?.stringValue?.hasPrefix("rule") == true, "\(reach.json ?? .null)")
    }
}

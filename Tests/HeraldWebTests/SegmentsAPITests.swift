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

    /// A segment renamed to another's name is refused as taken (409), as a new one is, and both
    /// keep their names; a segment as read (with its reach) may be sent back unchanged.
    @Test func aRenameToATakenNameIsAConflictAndAReadSegmentCanBeSentBack() async throws {
        let rule: JSON = ["all": [["field": "language", "equals": "fa"]]]
        _ = try await herald.request("POST", "/api/v1/segments", json: ["name": "Persian", "rule": rule])
        let other = try await herald.request("POST", "/api/v1/segments", json: ["name": "Hebrew", "rule": rule])
        let id = try #require(other.json?["id"]?.stringValue)
        let renamed = try await herald.request("PUT", "/api/v1/segments/\(id)", json: ["name": "Persian", "rule": rule])
        #expect(renamed.status == 409 && renamed.json?["code"] == "duplicate_name", "\(renamed.status) \(renamed.json ?? .null)")
        #expect(try await herald.request("GET", "/api/v1/segments/\(id)").json?["name"] == "Hebrew")

        let read = try #require(try await herald.request("GET", "/api/v1/segments/\(id)").json)
        #expect(read["devices"] != nil)
        #expect(try await herald.request("PUT", "/api/v1/segments/\(id)", json: read).status == 200)
    }

    /// A condition whose deciding member is null (null is absent) is refused with a reason; it once
    /// became an empty group and a PostgreSQL syntax error (500). A member that does not decide is
    /// still checked: a list of the wrong type or empty is refused beside an `equals`.
    @Test func aConditionOfNullsOrBadListsIsRefusedNeverAServerError() async throws {
        for rule: JSON in [["any": [["property": .null, "equals": ""]]], ["all": [["last_seen_within_days": .null]]],
                           ["field": "app_version", "at_least": "5", "not_in": []], ["field": "language", "equals": "fa", "in": [["x": 1]]],
                           ["property": "vip", "equals": "yes", "exists": "maybe"]] {
            let reach = try await herald.request("POST", "/api/v1/segment-reach", json: ["rule": rule])
            #expect(reach.status == 422, "\(rule): \(reach.status)")
            #expect(reach.json?["errors"]?.arrayValue?.isEmpty == false, "\(rule): \(reach.json ?? .null)")
        }
    }
}

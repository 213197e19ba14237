import Foundation
import HeraldHTTP
import HeraldJSON
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// The audit log records who did what to which campaign, and the admin page shows it.
@Suite(.serialized) final class AccountsAuditTests {
    let harness: AccessHarness

    init() throws {
        harness = try AccessHarness()
    }

    @Test func campaignChangesAreRecordedWithTheirAuthor() throws {
        let editor = try harness.key(.editor)
        let publisher = try harness.key(.publisher)
        func send(_ method: HTTPMethod, _ target: String, key: String, ifMatch: String? = nil, body: String? = nil) -> HTTPResponse {
            var headers = [("Authorization", "Bearer \(key)")]
            if let ifMatch { headers.append(("If-Match", ifMatch)) }
            if body != nil { headers.append(("Content-Type", "application/json")) }
            return harness.send(method, target, headers: headers, body: Array((body ?? "").utf8))
        }
        let created = send(.post, "/api/v1/campaigns", key: editor,
                           body: #"{"name":"Audit me","notification":{"title":"T","body":"B"},"topics":["news"]}"#)
        #expect(created.status == 201)
        #expect(created.json?["author"] == "api-key:editor-full")
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(send(.patch, "/api/v1/campaigns/\(id)", key: editor, ifMatch: "\"1\"", body: #"{"name":"Audited"}"#).status == 200)
        // A refused write leaves no entry.
        #expect(send(.patch, "/api/v1/campaigns/\(id)", key: editor, ifMatch: "\"1\"", body: #"{"name":"Stale"}"#).status == 412)
        #expect(send(.post, "/api/v1/campaigns/\(id)/cancel", key: editor, ifMatch: "\"2\"").status == 403)
        #expect(send(.post, "/api/v1/campaigns/\(id)/cancel", key: publisher, ifMatch: "\"2\"").status == 200)

        let audit = harness.send(.get, "/api/v1/audit?limit=10", headers: [("Authorization", "Bearer \(harness.herald.apiKey)")])
        let entries = (audit.json?["items"]?.arrayValue ?? []).filter { $0["object_id"]?.stringValue == id }
        #expect(entries.map { $0["action"]?.stringValue ?? "" } == ["campaign.cancelled", "campaign.updated", "campaign.created"])
        #expect(entries.map { $0["actor"]?.stringValue ?? "" } == ["api-key:publisher-full", "api-key:editor-full", "api-key:editor-full"])
        #expect(entries.allSatisfy { $0["api_key_id"]?.stringValue != nil && $0["at"]?.stringValue != nil })

        // The admin page lists the same entries; a publisher may not see it.
        let admin = try harness.session(try harness.user(.admin))
        let page = harness.send(.get, "/audit", headers: [("Cookie", "\(Authentication.sessionCookie)=\(admin.id)")])
        #expect(page.status == 200)
        #expect(page.text.contains("campaign.cancelled") && page.text.contains(id))
        let publisherSession = try harness.session(try harness.user(.publisher))
        #expect(harness.send(.get, "/audit", headers: [("Cookie", "\(Authentication.sessionCookie)=\(publisherSession.id)")]).status == 403)
    }
}

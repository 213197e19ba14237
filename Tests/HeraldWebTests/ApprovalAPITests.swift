import HeraldTestSupport
import Foundation
@testable import HeraldApp
import HeraldJSON
import HeraldPostgres
import Testing

/// Approvals over the REST API with `HERALD_APPROVALS=on`: an editor submits, a publisher other
/// than the last editor approves or rejects, and only an approved version is scheduled.
@Suite(.serialized) struct ApprovalAPITests {
    /// An API key of `role`, by name (each key is a different approver).
    func key(_ herald: TestHerald, _ name: String, _ role: Role) throws -> [String: String] {
        let key = try herald.server.application.database.pool.withConnection { connection in
            try APIKeyStore().create(name: name, role: role, scope: .full, createdBy: "tests", on: connection).key
        }
        return ["Authorization": "Bearer \(key)"]
    }

    func post(_ herald: TestHerald, _ path: String, version: Int, as auth: [String: String], json: JSON? = nil) async throws -> TestHerald.Response {
        try await herald.request("POST", path, json: json, headers: auth.merging(["If-Match": "\"\(version)\""]) { _, new in new })
    }

    @Test(.timeLimit(.minutes(5)))
    func anEditorCannotScheduleAndOnlyAnApprovedVersionIsScheduled() async throws {
        let herald = try TestHerald(environment: ["HERALD_APPROVALS": "on", "HERALD_SCHEDULER": "false"])
        let editor = try key(herald, "editor", .editor), publisher = try key(herald, "publisher", .publisher)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Needs a yes", topics: ["news"]), headers: editor)
        let id = try #require(created.json?["id"]?.stringValue)
        let path = "/api/v1/campaigns/\(id)"

        #expect(try await post(herald, "\(path)/schedule", version: 1, as: editor).status == 403)
        // Not even a publisher schedules a version nobody approved.
        let unapproved = try await post(herald, "\(path)/schedule", version: 1, as: publisher)
        #expect(unapproved.status == 409)
        #expect(unapproved.json?["code"] == "approval_required")

        let submitted = try await post(herald, "\(path)/submit", version: 1, as: editor)
        #expect(submitted.status == 200)
        #expect(submitted.json?["approval"]?["state"] == "awaiting_approval")
        #expect(try await post(herald, "\(path)/schedule", version: 1, as: publisher).json?["code"] == "approval_required")
        // A rejection needs a reason.
        let bare = try await post(herald, "\(path)/reject", version: 1, as: publisher)
        #expect(bare.status == 422)
        #expect(bare.json?["errors"]?.arrayValue?.first?["path"] == "comment")

        let approved = try await post(herald, "\(path)/approve", version: 1, as: publisher, json: ["comment": "Fine by me"])
        #expect(approved.status == 200)
        #expect(approved.json?["approval"]?["state"] == "approved")
        #expect(approved.json?["approval"]?["decided_by"] == "api_key:publisher")
        #expect(approved.json?["version"] == 1)  // a decision is not a content version
        let scheduled = try await post(herald, "\(path)/schedule", version: 1, as: publisher)
        #expect(scheduled.status == 200)
        #expect(scheduled.json?["status"] == "scheduled")

        let audit = try await herald.request("GET", "/api/v1/audit?limit=100")
        let actions = (audit.json?["items"]?.arrayValue ?? []).filter { $0["object_id"]?.stringValue == id }.compactMap { $0["action"]?.stringValue }
        for action in ["campaign.submitted_for_approval", "campaign.approved"] {
            #expect(actions.contains(action), "\(actions)")
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aPublisherCannotApproveTheirOwnChangeAndAnEditAfterApprovalWaitsAgain() async throws {
        let herald = try TestHerald(environment: ["HERALD_APPROVALS": "on", "HERALD_SCHEDULER": "false"])
        let editor = try key(herald, "editor", .editor)
        let ana = try key(herald, "ana", .publisher), bo = try key(herald, "bo", .publisher)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Spring", topics: ["news"]), headers: editor)
        let id = try #require(created.json?["id"]?.stringValue)
        let path = "/api/v1/campaigns/\(id)"
        #expect(try await post(herald, "\(path)/submit", version: 1, as: editor).status == 200)
        #expect(try await post(herald, "\(path)/approve", version: 1, as: bo).status == 200)

        // Ana edits the approved version: it waits for approval again, and not hers.
        let patched = try await herald.request("PATCH", path, json: ["notification": ["title": "Spring sale"]],
                                               headers: ana.merging(["If-Match": "\"1\"", "Content-Type": "application/merge-patch+json"]) { _, new in new })
        #expect(patched.status == 200)
        #expect(patched.json?["approval"]?["state"] == "awaiting_approval")
        #expect(try await post(herald, "\(path)/schedule", version: 2, as: bo).json?["code"] == "approval_required")
        let own = try await post(herald, "\(path)/approve", version: 2, as: ana)
        #expect(own.status == 422)
        #expect(own.json?["code"] == "own_change")

        // Bo sees what changed since the version he approved, and rejects it with a comment.
        let approval = try await herald.request("GET", "\(path)/approval", headers: bo)
        #expect(approval.json?["approved_version"] == 1)
        let changes = approval.json?["changes"]?.arrayValue ?? []
        #expect(changes.count == 1)
        #expect(changes.first?["path"] == "notification.title")
        #expect(changes.first?["before"] == "Spring")
        #expect(changes.first?["after"] == "Spring sale")
        let rejected = try await post(herald, "\(path)/reject", version: 2, as: bo, json: ["comment": "Keep the old title"])
        #expect(rejected.json?["approval"]?["state"] == "rejected")
        #expect(rejected.json?["approval"]?["comment"] == "Keep the old title")
        #expect(try await post(herald, "\(path)/approve", version: 2, as: bo).json?["code"] == "not_awaiting_approval")

        // A list stays a list (it was once given as the string "[\"news\"]").
        let edited = try await herald.request("PATCH", path, json: ["topics": ["news", "offers"]],
                                              headers: ana.merging(["If-Match": "\"2\"", "Content-Type": "application/merge-patch+json"]) { _, new in new })
        #expect(edited.status == 200)
        let listed = try await herald.request("GET", "\(path)/approval", headers: bo).json?["changes"]?.arrayValue ?? []
        #expect(listed.first { $0["path"] == "topics" }?["before"] == ["news"], "\(listed)")
        #expect(listed.first { $0["path"] == "topics" }?["after"] == ["news", "offers"], "\(listed)")
    }
}

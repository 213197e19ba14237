import Foundation
import HeraldHTTP
import HeraldJSON
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// Approvals in the pages: the editor submits from the review page, a publisher sees the diff
/// and approves there, and only then is there a Schedule button; the list shows the state.
@Suite(.serialized) struct ApprovalPagesTests {
    @Test func theEditorSubmitsAndAnotherPublisherApprovesFromTheReviewPage() async throws {
        let editor = try PagesBrowser(role: .editor, environment: ["HERALD_APPROVALS": "on", "HERALD_SCHEDULER": "false"])
        let harness = editor.harness
        let publisher = try harness.session(try harness.user(.publisher))
        func asPublisher(_ method: HTTPMethod, _ target: String, _ fields: [(String, String)] = []) -> HTTPResponse {
            let cookie = ("Cookie", "\(Authentication.sessionCookie)=\(publisher.id)")
            guard method == .post else { return harness.send(.get, target, headers: [cookie]) }
            let response = harness.send(.post, target, headers: [("Content-Type", "application/x-www-form-urlencoded"), cookie],
                                        body: Array(AccessHarness.encode([("csrf_token", publisher.csrf)] + fields).utf8))
            guard response.status == 303, let location = response.headers["Location"] else { return response }
            return harness.send(.get, location, headers: [cookie])
        }

        _ = editor.post("/campaigns", CampaignFormTests.fields([("schedule_kind", "none")]))
        let list = try await harness.herald.request("GET", "/api/v1/campaigns")
        let id = try #require(list.json?["items"]?.arrayValue?.first?["id"]?.stringValue)

        let review = editor.get("/campaigns/\(id)/review").text
        #expect(review.contains("Approval: Not submitted for approval"))
        #expect(review.contains("action=\"/campaigns/\(id)/submit\""))
        let submitted = editor.post("/campaigns/\(id)/submit", [("version", "1")]).text
        #expect(submitted.contains("Submitted for approval"))
        #expect(submitted.contains("Approval: Awaiting approval"))
        #expect(!submitted.contains("action=\"/campaigns/\(id)/approve\""))  // an editor does not decide

        // The publisher sees every field as new (nothing approved yet), and no Schedule button before approving.
        let pending = asPublisher(.get, "/campaigns/\(id)/review").text
        #expect(pending.contains("Changes since nothing (no version was approved yet)"))
        #expect(pending.contains("<code>notification.title</code>"))
        #expect(!pending.contains("action=\"/campaigns/\(id)/publish\""))
        #expect(pending.contains("action=\"/campaigns/\(id)/approve\""))
        let approved = asPublisher(.post, "/campaigns/\(id)/approve", [("version", "1"), ("comment", "Good to go")]).text
        #expect(approved.contains("Approved: this version may now be scheduled or sent."))
        #expect(approved.contains("Good to go"))
        #expect(approved.contains("action=\"/campaigns/\(id)/publish\""))
        // The panel names the decision with its decider and comment.
        #expect(approved.contains("Approved by ") && approved.contains(": <q dir=\"auto\">Good to go</q>"))
        #expect(asPublisher(.get, "/campaigns").text.contains(">Approved</span>"))
    }

    /// An edit after approval of a scheduled campaign: the review page says its runs are held
    /// until a publisher approves the new version, and stops saying so once one has.
    @Test func theReviewPageSaysAnEditAfterApprovalHoldsTheScheduledRuns() async throws {
        let editor = try PagesBrowser(role: .editor, environment: ["HERALD_APPROVALS": "on", "HERALD_SCHEDULER": "false"])
        let harness = editor.harness
        let publisher = try harness.session(try harness.user(.publisher))
        func asPublisher(_ target: String, _ fields: [(String, String)]) -> HTTPResponse {
            harness.send(.post, target, headers: [("Content-Type", "application/x-www-form-urlencoded"),
                                                  ("Cookie", "\(Authentication.sessionCookie)=\(publisher.id)")],
                         body: Array(AccessHarness.encode([("csrf_token", publisher.csrf)] + fields).utf8))
        }
        _ = editor.post("/campaigns", CampaignFormTests.fields())
        let id = try #require(harness.herald.server.application.campaigns.list(CampaignFilter(), after: nil).campaigns.first?.id)
        _ = editor.post("/campaigns/\(id)/submit", [("version", "1")])
        #expect(asPublisher("/campaigns/\(id)/approve", [("version", "1")]).status == 303)
        #expect(asPublisher("/campaigns/\(id)/schedule", [("version", "1")]).status == 303)
        let held = "Its scheduled runs are held: this version is not the one approved"
        #expect(!editor.get("/campaigns/\(id)/review").text.contains(held))

        _ = editor.post("/campaigns/\(id)", CampaignFormTests.fields([("version", "1"), ("title", "Changed after approval")]))
        let review = editor.get("/campaigns/\(id)/review").text
        #expect(review.contains("Approval: Awaiting approval"))
        #expect(review.contains(held))
        // The state moved on; the last decision is still said as what it was.
        #expect(review.contains("Approved by "), "\(review.split(separator: "\n").filter { $0.contains("decision") || $0.contains(" by ") })")
        #expect(try await harness.herald.request("GET", "/api/v1/campaigns/\(id)").json?["approval"]?["decision"] == "approved")
        #expect(asPublisher("/campaigns/\(id)/reject", [("version", "2"), ("comment", "Not this title")]).status == 303)
        let rejected = editor.get("/campaigns/\(id)/review").text
        #expect(rejected.contains("Rejected by ") && rejected.contains("Not this title"))
        #expect(try await harness.herald.request("GET", "/api/v1/campaigns/\(id)").json?["approval"]?["decision"] == "rejected")
        // A resubmission starts afresh: no decision is shown for the version now waiting.
        _ = editor.post("/campaigns/\(id)/submit", [("version", "2")])
        #expect(!editor.get("/campaigns/\(id)/review").text.contains("Rejected by "))
        #expect(asPublisher("/campaigns/\(id)/approve", [("version", "2")]).status == 303)
        #expect(!editor.get("/campaigns/\(id)/review").text.contains(held))
    }

    @Test func aPublisherWhoMadeTheLastChangeIsToldWhyTheyCannotDecide() async throws {
        let own = try PagesBrowser(role: .publisher, environment: ["HERALD_APPROVALS": "on", "HERALD_SCHEDULER": "false"])
        let saved = own.post("/campaigns", CampaignFormTests.fields([("schedule_kind", "none")]))
        #expect(saved.status == 200)
        let id = try #require(own.harness.herald.server.application.campaigns.list(CampaignFilter(), after: nil).campaigns.first?.id)
        let page = own.post("/campaigns/\(id)/submit", [("version", "1")]).text
        #expect(page.contains("You cannot approve or reject this version: the last change was yours"))
        #expect(!page.contains("action=\"/campaigns/\(id)/approve\""))
        // Forcing it anyway is refused, with the reason on the page.
        let forced = own.post("/campaigns/\(id)/approve", [("version", "1")])
        #expect(forced.status == 422)
        #expect(forced.text.contains("You cannot decide on your own change"))
    }
}

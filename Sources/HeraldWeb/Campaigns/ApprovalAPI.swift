import Foundation
import HeraldApp
import HeraldCore
import HeraldJSON

/// Approvals over the API: `/submit` (editor), `/approve` and `/reject` (publisher, not the last
/// editor, with `{"comment": "…"}`), and `GET /approval`, the state with the diff against the
/// version approved last.
struct ApprovalAPI: Sendable {
    let campaigns: CampaignService

    func submit(_ context: RequestContext) throws -> APIResponse {
        let version = try CampaignsAPI.expectedVersion(context)
        return CampaignsAPI.answer(try campaigns.submitForApproval(try context.campaignID(), expectedVersion: version, by: context.actor))
    }

    func approve(_ context: RequestContext) throws -> APIResponse {
        try decide(context, approve: true)
    }

    func reject(_ context: RequestContext) throws -> APIResponse {
        try decide(context, approve: false)
    }

    func show(_ context: RequestContext) throws -> APIResponse {
        let (record, changes) = try campaigns.approvalDiff(try context.campaignID())
        return APIResponse(status: 200, body: Self.json(record, changes))
    }

    static func json(_ record: CampaignRecord, _ changes: [CampaignDiff.Change]) -> JSON {
        ["state": .string(record.approval.state.rawValue), "version": .number(Double(record.version)),
         "approved_version": record.approval.approvedVersion.map { .number(Double($0)) } ?? .null,
         "comment": record.approval.comment.map { .string($0) } ?? .null,
         "decided_by": record.approval.decidedBy.map { .string($0) } ?? .null,
         "decision": record.approval.decision.map { .string($0.rawValue) } ?? .null,
         "runs_held": .bool(record.approval.runsHeld(status: record.status, version: record.version)),
         "last_editor": record.updatedBy.map { .string($0.identity) } ?? .null,
         "changes": .array(changes.map { change in
             // The values as the contract has them (a topic list is a list), not as a page shows them.
             ["path": .string(change.path), "before": change.old ?? .null, "after": change.new ?? .null]
         })]
    }

    /// The optional body `{"comment": "…"}`; an empty body is no comment.
    func decide(_ context: RequestContext, approve: Bool) throws -> APIResponse {
        let version = try CampaignsAPI.expectedVersion(context)
        var comment: String?
        if !context.request.body.isEmpty {
            let body = try context.jsonBody()
            guard let object = body.objectValue, Set(object.keys).isSubset(of: ["comment"]),
                  object["comment"].map({ $0.stringValue != nil || $0 == .null }) ?? true else {
                throw AppError.invalidField("comment", "send {\"comment\": \"…\"} (a string) and nothing else", code: "invalid_value",
                                            title: "The request is not valid")
            }
            comment = object["comment"]?.stringValue
        }
        return CampaignsAPI.answer(try campaigns.decideApproval(try context.campaignID(), expectedVersion: version, approve: approve,
                                                                comment: comment, by: context.actor))
    }
}

import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Approvals (`HERALD_APPROVALS=on`): an editor submits a campaign, a publisher other than its
/// last editor approves or rejects it with a comment, and only an approved version is scheduled
/// or sent. Each decision is audited with the version it was about.
extension CampaignService {
    /// Whether approvals are on in this installation (the pages show their panel only then).
    public var approvalsOn: Bool { approvalsRequired }

    /// Asks for approval of the current version.
    public func submitForApproval(_ id: CampaignID, expectedVersion: Int, by actor: Actor) throws -> CampaignRecord {
        try database.transaction { connection in
            let current = try lockedForApproval(id, expectedVersion: expectedVersion, on: connection)
            guard current.status.isEditable else {
                throw refusal(current, code: "not_submittable", "Campaign \(id) is \(current.status.rawValue); only draft and scheduled campaigns are submitted for approval.")
            }
            guard let next = current.approval.state.submitted else {
                throw refusal(current, code: "not_submittable", current.approval.state == .approved
                              ? "Version \(current.version) of campaign \(id) is approved already; edit it to need approval again."
                              : "Campaign \(id) is awaiting approval already.")
            }
            guard let record = try approvals.set(id, to: next, clearingDecision: true, on: connection) else { throw AppError.notFound(.campaign("\(id)")) }
            try audit.record(.campaignSubmitted, by: actor, object: .campaign(id),
                             details: ["version": .number(Double(record.version))], on: connection)
            try WebhookOutbox.enqueueCampaignEvents([(.approvalRequested, id, ["actor": .string(actor.name)])], on: connection)
            return record
        }
    }

    /// Approves (or rejects) the version awaiting approval; `comment` is required to reject.
    public func decideApproval(_ id: CampaignID, expectedVersion: Int, approve: Bool, comment: String?, by actor: Actor) throws -> CampaignRecord {
        let comment = comment?.trimmingCharacters(in: .whitespacesAndNewlines)
        if !approve, comment?.isEmpty ?? true {
            throw AppError.invalidField("comment", "say why it is rejected: the editor reads this comment", code: "required", title: "The rejection is not valid")
        }
        if let comment, comment.count > CampaignLimits.approvalCommentCharacters {
            throw AppError.invalidField("comment", "at most \(CampaignLimits.approvalCommentCharacters) characters", code: "too_long",
                                        title: "The comment is not valid")
        }
        return try database.transaction { connection in
            let current = try lockedForApproval(id, expectedVersion: expectedVersion, on: connection)
            guard current.approval.state.isDecidable else {
                throw refusal(current, code: "not_awaiting_approval", "Campaign \(id) is not awaiting approval (it is \(current.approval.state.rawValue)); it must be submitted first.")
            }
            if let reason = ApprovalState.selfApprovalRefusal(approver: actor.attribution.identity, lastEditor: current.updatedBy?.identity) {
                throw AppError.refused(code: "own_change", title: "You cannot decide on your own change", detail: "Campaign \(id): \(reason).")
            }
            guard let record = try approvals.decide(id, approved: approve, comment: comment.flatMap { $0.isEmpty ? nil : $0 },
                                                    by: actor.attribution.identity, on: connection) else {
                throw AppError.notFound(.campaign("\(id)"))
            }
            var details: JSONObject = ["version": .number(Double(record.version))]
            if let comment, !comment.isEmpty { details["comment"] = .string(comment) }
            // An approval of a scheduled campaign lets its held runs start.
            if approve, current.approval.runsHeld(status: current.status, version: current.version) { details["runs_released"] = true }
            try audit.record(approve ? .campaignApproved : .campaignRejected, by: actor, object: .campaign(id),
                             details: details, on: connection)
            var told: JSONObject = ["actor": .string(actor.name)]
            if let comment, !comment.isEmpty { told["comment"] = .string(comment) }
            try WebhookOutbox.enqueueCampaignEvents([(approve ? .approvalGiven : .approvalRefused, id, told)], on: connection)
            return record
        }
    }

    /// The campaign and what changed since the version approved last (every field when none was).
    public func approvalDiff(_ id: CampaignID) throws -> (CampaignRecord, [CampaignDiff.Change]) {
        try database.read { connection in
            guard let record = try campaigns.find(id: id, on: connection) else { throw AppError.notFound(.campaign("\(id)")) }
            return (record, CampaignDiff.changes(from: try approvals.approvedContent(id, on: connection), to: record.content))
        }
    }

    // MARK: - Helpers

    var approvals: ApprovalStore { ApprovalStore() }

    /// A content edit of an approved version puts it back to awaiting approval. With approvals on,
    /// a scheduled campaign's runs are then held (the scheduler starts none until a publisher
    /// approves the new version), and the audit log says so.
    func approvalAfterEdit(_ record: CampaignRecord, by actor: Actor, on connection: PostgresConnection) throws -> CampaignRecord {
        let next = record.approval.state.afterContentEdit
        guard next != record.approval.state else { return record }
        let updated = try approvals.set(record.id, to: next, clearingDecision: false, on: connection) ?? record
        if approvalsRequired, updated.approval.runsHeld(status: updated.status, version: updated.version) {
            try audit.record(.campaignRunsHeld, by: actor, object: .campaign(record.id), details: [
                "version": .number(Double(updated.version)),
                "approved_version": updated.approval.approvedVersion.map { .number(Double($0)) } ?? .null,
            ], on: connection)
        }
        return updated
    }

    /// With approvals on, only an approved version is scheduled or sent.
    func refuseUnapproved(_ record: CampaignRecord) throws {
        guard !record.approval.state.allowsSending(required: approvalsRequired) else { return }
        throw refusal(record, code: "approval_required", record.approval.state == .none || record.approval.state == .rejected
                      ? "Campaign \(record.id) needs approval before it is scheduled or sent: submit it, and a publisher other than its last editor approves it."
                      : "Campaign \(record.id) is \(record.approval.state.rawValue.replacingOccurrences(of: "_", with: " ")); only an approved version is scheduled or sent.")
    }

    func lockedForApproval(_ id: CampaignID, expectedVersion: Int, on connection: PostgresConnection) throws -> CampaignRecord {
        guard approvalsRequired else {
            throw AppError.refused(code: "approvals_off", title: "Approvals are not on",
                                   detail: "This installation sends without approval (HERALD_APPROVALS is off).")
        }
        guard let current = try campaigns.find(id: id, on: connection, forUpdate: true) else { throw AppError.notFound(.campaign("\(id)")) }
        if current.version != expectedVersion { throw AppError.versionMismatch(currentVersion: current.version, expectedVersion: expectedVersion) }
        return current
    }

    func refusal(_ current: CampaignRecord, code: String, _ detail: String) -> AppError {
        .conflict(code: code, title: "The approval step cannot be taken", detail: detail, currentStatus: current.status)
    }
}

import HeraldApp
import HeraldJSON

extension CampaignRecord {
    /// The REST representation: the stored content plus id, status, version, times and attribution.
    var json: JSON {
        var object: JSONObject = ["id": .string(id.description), "status": .string(status.rawValue), "version": .number(Double(version))]
        let content = content.objectValue ?? [:]
        // The members below and the content's, at once rather than by doubling.
        object.reserveCapacity(object.count + content.count + 7)
        for (key, value) in content { object[key] = value }
        if let author { object["author"] = .string(author) }
        object["created_at"] = .time(createdAt)
        object["updated_at"] = .time(updatedAt)
        object["updated_by"] = updatedBy.map { ["name": .string($0.name), "kind": .string($0.kind.rawValue)] } ?? .null
        object["next_run_at"] = nextRunAt.map(JSON.time) ?? .null
        if approval.state != .none {
            var approvalObject = approval.json
            approvalObject["runs_held"] = .bool(approval.runsHeld(status: status, version: version))
            object["approval"] = .object(approvalObject)
        }
        return .object(object)
    }
}

extension CampaignApproval {
    var json: JSONObject {
        ["state": .string(state.rawValue), "comment": comment.map { .string($0) } ?? .null,
         "decided_by": decidedBy.map { .string($0) } ?? .null, "decision": decision.map { .string($0.rawValue) } ?? .null,
         "approved_version": approvedVersion.map { .number(Double($0)) } ?? .null]
    }
}

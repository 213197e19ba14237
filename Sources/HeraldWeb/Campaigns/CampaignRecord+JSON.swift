import HeraldApp
import HeraldJSON

extension CampaignRecord {
    /// The REST representation: the stored content plus id, status, version, times and attribution.
    var json: JSON {
        let content = content.objectValue ?? [:]
        let (leading, trailing) = (leadingMembers, trailingMembers)
        var object = JSONObject()
        // The members below and the content's, at once rather than by doubling.
        object.reserveCapacity(leading.count + content.count + trailing.count)
        for (key, value) in leading { object[key] = value }
        for (key, value) in content { object[key] = value }
        for (key, value) in trailing { object[key] = value }
        return .object(object)
    }

    /// The members before the content's.
    private var leadingMembers: [(String, JSON)] {
        [("id", .string(id.description)), ("status", .string(status.rawValue)), ("version", .number(Double(version)))]
    }

    /// The members after the content's.
    private var trailingMembers: [(String, JSON)] {
        var members: [(String, JSON)] = []
        members.reserveCapacity(6)
        if let author { members.append(("author", .string(author))) }
        members.append(("created_at", .time(createdAt)))
        members.append(("updated_at", .time(updatedAt)))
        members.append(("updated_by", updatedBy.map { ["name": .string($0.name), "kind": .string($0.kind.rawValue)] } ?? .null))
        members.append(("next_run_at", nextRunAt.map(JSON.time) ?? .null))
        if approval.state != .none {
            var approvalObject = approval.json
            approvalObject["runs_held"] = .bool(approval.runsHeld(status: status, version: version))
            members.append(("approval", .object(approvalObject)))
        }
        return members
    }

    /// The members `json` adds to the stored content, and `segment_summary`, which the API adds.
    static let ownMembers: Set<String> = ["id", "status", "version", "author", "created_at", "updated_at", "updated_by",
                                          "next_run_at", "approval", "segment_summary"]

    /// `json` (with `segment_summary` last when given) written straight out: the same bytes as
    /// merging it into one object and serialising that, without copying every member of the
    /// content into a new object and dropping it again. nil when the content holds one of the
    /// record's own members: only the merge says where that one goes.
    func serializedJSON(segmentSummary: JSON?) -> [UInt8]? {
        let content = content.objectValue ?? [:]
        guard !content.contains(where: { Self.ownMembers.contains($0.key) }) else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(1024)
        var first = true
        func member(_ key: String, _ value: JSON) {
            output.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
            first = false
            JSON.writeString(key, into: &output)
            output.append(UInt8(ascii: ":"))
            value.write(into: &output)
        }
        for (key, value) in leadingMembers { member(key, value) }
        for (key, value) in content { member(key, value) }
        for (key, value) in trailingMembers { member(key, value) }
        if let segmentSummary { member("segment_summary", segmentSummary) }
        output.append(UInt8(ascii: "}"))
        return output
    }
}

extension CampaignApproval {
    var json: JSONObject {
        ["state": .string(state.rawValue), "comment": comment.map { .string($0) } ?? .null,
         "decided_by": decidedBy.map { .string($0) } ?? .null, "decision": decision.map { .string($0.rawValue) } ?? .null,
         "approved_version": approvedVersion.map { .number(Double($0)) } ?? .null]
    }
}

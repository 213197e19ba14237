import HeraldApp
import HeraldCore
import HeraldJSON

extension JourneyRecord {
    /// The REST representation: the draft's definition plus id, status, versions and times. Sent
    /// back as it was read, it saves unchanged (the server's members are ignored).
    var json: JSON {
        var object: JSONObject = ["id": .string(id.description), "status": .string(status.rawValue), "version": .number(Double(version)),
                                  "published_version": publishedVersion.map { .number(Double($0)) } ?? .null]
        for (key, value) in draft.toJSON().objectValue ?? [:] { object[key] = value }
        object["created_at"] = .time(createdAt)
        object["updated_at"] = .time(updatedAt)
        return .object(object)
    }

    var etag: String { "\"\(version)\"" }
}

extension JourneyReport {
    var json: JSON {
        var object: JSONObject = [
            "journey_id": .string(journeyID.description),
            "published_version": publishedVersion.map { .number(Double($0)) } ?? .null,
            "entered": .number(Double(entered)), "in_journey": .number(Double(inJourney)),
            "goal": .number(Double(goal)), "completed": .number(Double(completed)), "stopped": .number(Double(stopped)), "gone": .number(Double(gone)),
            "holdout": ["entered": .number(Double(heldOut)), "goal": .number(Double(heldOutGoal))],
        ]
        if let comparison {
            object["goal_comparison"] = [
                "difference": .number(comparison.difference), "p_value": .number(comparison.pValue), "significant": .bool(comparison.significant),
                "interval": [.number(comparison.interval.lowerBound), .number(comparison.interval.upperBound)],
                "verdict": verdict.map { .string($0.sentence) } ?? .null,
            ]
        } else {
            object["goal_comparison"] = .null
        }
        object["steps"] = .array(steps.map { step in
            var item: JSONObject = ["version": .number(Double(step.version)), "index": .number(Double(step.index)), "name": .string(step.name),
                                    "type": .string(step.type), "reached": .number(Double(step.reached)), "left": .number(Double(step.left)),
                                    "waiting": .number(Double(step.waiting))]
            if step.type == "send" {
                let figures: JSONObject = ["sent": .number(Double(step.sent)), "skipped": .number(Double(step.skipped)),
                                           "delivered": .number(Double(step.delivered)), "failed": .number(Double(step.failed)),
                                           "capped": .number(Double(step.capped)), "opened": .number(Double(step.opened)),
                                           "converted": .number(Double(step.converted))]
                for (key, value) in figures { item[key] = value }
                item["campaign_id"] = step.campaignID.map { .string($0.description) } ?? .null
                item["winner_decision"] = step.winner?.json ?? .null
            }
            return .object(item)
        })
        return .object(object)
    }
}

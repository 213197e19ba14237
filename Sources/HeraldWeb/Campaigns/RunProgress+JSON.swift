import HeraldApp
import HeraldCore
import HeraldJSON

extension RunProgress {
    /// The runs API's representation.
    var json: JSON {
        var run: JSONObject = [
            "id": .string(id.description), "status": .string(status.rawValue), "planned": .number(Double(planned)),
            "warnings": .array(warnings.map(JSON.string)), "due_at": .time(dueAt), "started_at": .time(startedAt),
            "finished_at": finishedAt.map(JSON.time) ?? .null,
            "variants": .object(JSONObject(variants.map { ($0.key, $0.counts.json) })),
            "rollout_variant": rolloutVariant.map(JSON.string) ?? .null,
            "campaign_version": campaignVersion.map { .number(Double($0)) } ?? .null,
        ]
        if let expiresAt { run["expires_at"] = .time(expiresAt) }
        if let window { run["window"] = ["opens_at": .time(window.opensAt), "closes_at": .time(window.closesAt)] }
        if let fanOutQueueAhead { run["fan_out_queue_ahead"] = .number(Double(fanOutQueueAhead)) }
        if let waves {
            run["waves"] = .array(waves.map { wave in
                ["at": .time(wave.at), "devices": .number(Double(wave.devices)), DeliveryStatus.sent.rawValue: .number(Double(wave.sent)),
                 "waiting": .number(Double(wave.waiting)), DeliveryStatus.expired.rawValue: .number(Double(wave.expired))]
            })
        }
        return .object(run)
    }
}

extension RunProgress.Counts {
    var json: JSON {
        ["planned": .number(Double(planned)), DeliveryStatus.sent.rawValue: .number(Double(sent)),
         DeliveryStatus.failed.rawValue: .number(Double(failed)), DeliveryStatus.retrying.rawValue: .number(Double(retrying)),
         DeliveryStatus.pending.rawValue: .number(Double(pending)), DeliveryStatus.cancelled.rawValue: .number(Double(cancelled)),
         DeliveryStatus.expired.rawValue: .number(Double(expired)), DeliveryStatus.capped.rawValue: .number(Double(capped))]
    }
}

extension DeliveryRecord {
    /// The deliveries API's representation.
    var json: JSON {
        var delivery: JSONObject = [
            "id": .number(Double(id)), "run_id": .string(runID.description), "variant": .string(variant),
            "target": target.json, "status": .string(status.rawValue), "attempts": .number(Double(attempts)),
        ]
        if let messageName { delivery["message_name"] = .string(messageName) }
        if let error { delivery["error"] = ["code": .string(error.code), "message": .string(error.message)] }
        if let sentAt { delivery["sent_at"] = .time(sentAt) }
        if let nextAttemptAt { delivery["next_attempt_at"] = .time(nextAttemptAt) }
        return .object(delivery)
    }
}

import HeraldApp
import HeraldJSON

extension StoredDevice {
    /// The devices API's representation.
    var json: JSON {
        let device = device
        var object: JSONObject = ["token": .string(device.token), "kind": .string(device.kind.rawValue), "platform": .string(device.platform.rawValue)]
        object["app_id"] = device.appID.map(JSON.string) ?? .null
        object["app_version"] = device.appVersion.map(JSON.string) ?? .null
        object["language"] = device.language.map(JSON.string) ?? .null
        object["country"] = device.country.map(JSON.string) ?? .null
        object["time_zone"] = device.timeZone.map(JSON.string) ?? .null
        object["properties"] = .object(JSONObject(device.properties.sorted { $0.key < $1.key }.map { ($0.key, JSON.string($0.value)) }))
        object["last_seen_at"] = device.lastSeen.map(JSON.time) ?? .null
        object["registered_at"] = .time(registeredAt)
        object["status"] = .string(status.rawValue)
        object["invalid_reason"] = invalidReason.map(JSON.string) ?? .null
        object["quiet_categories"] = .array(device.quietCategories.map(JSON.string))
        object["live_activity_token"] = device.liveActivityToken.map(JSON.string) ?? .null
        return .object(object)
    }
}

extension DeviceImportReport {
    /// What an import did, as the import API answers it.
    var json: JSON {
        ["rows": .number(Double(rows)), "created": .number(Double(created)), "updated": .number(Double(updated)),
         "failed": .number(Double(failedRows)),
         "errors": .array(errors.map { ["line": .number(Double($0.line)), "field": .string($0.error.path), "code": .string($0.error.code),
                                        "message": .string($0.error.message)] })]
    }
}

extension DeviceService.TopicChange {
    /// What a topic subscription change did, as the topics API answers it.
    var json: JSON {
        ["devices": .number(Double(devices)), "changed": .number(Double(changed)), "failed": .number(Double(failed)), "calls": .number(Double(calls)),
         "throttled": .number(Double(throttled)), "skipped_fids": .number(Double(skippedFIDs)),
         "skipped_reason": skippedFIDs == 0 ? .null : .string(Self.fidSkipReason),
         "failures": .array(failures.map { ["token": .string($0.token), "reason": .string($0.reason)] })]
    }
}

extension TopicJob {
    /// A subscription job as the topics API answers it: its kind and state, the devices it had to
    /// do when it was made, and what the devices done so far did (the counts of a topic change; a
    /// time-zone job's `changed` are the devices put into their zone's topic, `unsubscribed` those
    /// taken out of their former zone's, `zones` the zones whose topics gained devices).
    var json: JSON {
        guard case .object(var object) = change.json else { return .null }
        object["skipped_reason"] = nil
        object["id"] = .string(id.description)
        object["kind"] = .string(kind.rawValue)
        object["topic"] = topic.map(JSON.string) ?? .null
        object["unsubscribe"] = .bool(unsubscribe)
        object["segment"] = segmentID.map { .string($0.description) } ?? .null
        if kind == .timeZones {
            object["unsubscribed"] = .number(Double(change.unsubscribed))
            object["zones"] = .array(change.zones.sorted().map(JSON.string))
        }
        object["status"] = .string(status.rawValue)
        object["reach"] = .number(Double(reach))
        object["error"] = error.map(JSON.string) ?? .null
        object["created_by"] = .string(createdBy)
        object["created_at"] = .time(createdAt)
        object["started_at"] = startedAt.map(JSON.time) ?? .null
        object["finished_at"] = finishedAt.map(JSON.time) ?? .null
        return .object(object)
    }
}

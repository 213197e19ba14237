import HeraldApp
import HeraldCore
import HeraldJSON

/// `/api/v1/segments`: saved filters over devices, and how many devices a rule reaches.
struct SegmentsAPI: Sendable {
    let segments: SegmentService

    func list(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: ["items": .array(try segments.list().map(\.json))])
    }

    func create(_ context: RequestContext) throws -> APIResponse {
        let segment = try segments.create(try context.jsonBody(), by: context.actor)
        return APIResponse(status: 201, body: try withReach(segment), headers: [("Location", "/api/v1/segments/\(segment.id)")])
    }

    func get(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: try withReach(try segments.get(try context.segmentID())))
    }

    func replace(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: try withReach(try segments.update(try context.segmentID(), try context.jsonBody(), by: context.actor)))
    }

    func delete(_ context: RequestContext) throws -> APIResponse {
        try segments.delete(try context.segmentID(), by: context.actor)
        return APIResponse(status: 204, body: nil)
    }

    /// `{"rule": …}` → how many active devices it reaches now (the editor's live count), or the
    /// planner's estimate with `"estimate": true` when counting takes over a second.
    func reach(_ context: RequestContext) throws -> APIResponse {
        let body = try context.jsonBody()
        guard let value = body["rule"] else {
            throw AppError.invalidField("rule", "\"rule\" is required: conditions under \"all\" or \"any\"", code: "required")
        }
        let rule = try DeviceService.checked(SegmentRule.parse(value), title: "The rule is not valid")
        let reach = try segments.liveReach(rule)
        return APIResponse(status: 200, body: ["devices": .number(Double(reach.devices)), "estimate": .bool(reach.isEstimate)])
    }

    /// A segment with its kept reach: `devices` as counted at `devices_counted_at` (on its save,
    /// then again every few minutes in the background), never counted on the request.
    func withReach(_ segment: Segment) throws -> JSON {
        var json = segment.json
        if case .object(var object) = json {
            let reach = try segments.keptReach(segment)
            object["devices"] = .number(Double(reach.devices))
            object["devices_counted_at"] = .time(reach.countedAt)
            json = .object(object)
        }
        return json
    }
}

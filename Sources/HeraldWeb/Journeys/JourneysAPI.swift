import HeraldApp
import HeraldCore
import HeraldJSON

/// `/api/v1/journeys`: journeys written as drafts, published as versions, paused, resumed,
/// stopped, and reported (see `JourneyService`).
struct JourneysAPI: Sendable {
    let journeys: JourneyService

    func list(_ context: RequestContext) throws -> APIResponse {
        let (limit, cursor) = try context.pageQuery(defaultLimit: JourneyService.defaultPageSize, maximumLimit: JourneyService.maximumPageSize) { JourneyID($0) }
        let page = try journeys.list(limit: limit, after: cursor)
        return APIResponse(status: 200, body: ["items": .array(page.journeys.map(\.json)),
                                               "next_cursor": page.next.map { .string($0.description) } ?? .null])
    }

    func create(_ context: RequestContext) throws -> APIResponse {
        let record = try journeys.create(try context.jsonBody(), by: context.actor)
        return APIResponse(status: 201, body: record.json, headers: [("Location", "/api/v1/journeys/\(record.id)"), ("ETag", record.etag)])
    }

    func get(_ context: RequestContext) throws -> APIResponse {
        Self.answer(try journeys.get(try context.journeyID()))
    }

    func replace(_ context: RequestContext) throws -> APIResponse {
        let id = try context.journeyID()
        let version = try CampaignsAPI.expectedVersion(context)
        return Self.answer(try journeys.update(id, try context.jsonBody(), expectedVersion: version, by: context.actor))
    }

    func delete(_ context: RequestContext) throws -> APIResponse {
        try journeys.delete(try context.journeyID(), by: context.actor)
        return APIResponse(status: 204, body: nil)
    }

    /// `{"move_devices": true}` moves the devices in older versions to the new one; `If-Match`,
    /// when sent, publishes only the draft that was read.
    func publish(_ context: RequestContext) throws -> APIResponse {
        let id = try context.journeyID()
        let body = context.request.body.isEmpty ? JSON.object([:]) : try context.jsonBody()
        guard case .object(let object) = body else { throw AppError.invalidField("", "the body is a JSON object such as {\"move_devices\": true}", code: "wrong_type") }
        if let other = object.keys.first(where: { $0 != "move_devices" }) {
            throw AppError.invalidField(other, "unknown field \"\(other)\"; publishing takes only move_devices", code: "unknown_field")
        }
        var move = false
        if let value = object["move_devices"], value != .null {
            guard let flag = value.boolValue else { throw AppError.invalidField("move_devices", "move_devices is true or false", code: "wrong_type") }
            move = flag
        }
        let expected = context.request.headers["If-Match"] == nil ? nil : try CampaignsAPI.expectedVersion(context)
        let (record, moved) = try journeys.publish(id, expectedVersion: expected, moveDevices: move, by: context.actor)
        var json = record.json.objectValue ?? [:]
        json["moved_devices"] = .number(Double(moved))
        return APIResponse(status: 200, body: .object(json), headers: [("ETag", record.etag)])
    }

    func pause(_ context: RequestContext) throws -> APIResponse { Self.answer(try journeys.pause(try context.journeyID(), by: context.actor)) }
    func resume(_ context: RequestContext) throws -> APIResponse { Self.answer(try journeys.resume(try context.journeyID(), by: context.actor)) }
    func stop(_ context: RequestContext) throws -> APIResponse { Self.answer(try journeys.stop(try context.journeyID(), by: context.actor)) }

    func report(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: try journeys.report(try context.journeyID()).json)
    }

    static func answer(_ record: JourneyRecord) -> APIResponse {
        APIResponse(status: 200, body: record.json, headers: [("ETag", record.etag)])
    }
}

import HeraldApp

/// `POST /api/v1/events`: apps or backends report `open` and `conversion` events (see `EventService`).
struct EventsAPI: Sendable {
    let events: EventService

    func record(_ context: RequestContext) throws -> APIResponse {
        let recorded = try events.record(try context.jsonBody())
        return APIResponse(status: 200, body: ["received": .number(Double(recorded.received)), "recorded": .number(Double(recorded.recorded)),
                                               "duplicates": .number(Double(recorded.duplicates))])
    }
}

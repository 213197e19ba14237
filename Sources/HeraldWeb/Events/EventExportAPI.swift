import FCMMessage
import HeraldApp
import HeraldCore
import HeraldHTTP
import HeraldJSON

/// `GET /api/v1/events`: every open and conversion as NDJSON, in the order recorded, a page at a
/// time: a warehouse keeps `Herald-Next-Cursor` and asks again after it.
struct EventExportAPI: Sendable {
    static let defaultLimit = 1000

    let events: EventService

    func export(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        var cursor: Int64?, since: String?, limit = Self.defaultLimit
        var errors: [FieldError] = []
        for (name, value) in context.request.queryItems {
            switch name {
            case "cursor":
                if let parsed = Int64(value), parsed >= 0 { cursor = parsed } else {
                    errors.append(FieldError(path: name, code: "invalid_cursor", message: "cursor must be a Herald-Next-Cursor value from a previous page"))
                }
            case "since":
                if RFC3339.isStorable(value) { since = value } else {
                    errors.append(FieldError(path: name, code: "invalid_value", message: "since must be an RFC 3339 time, such as 2026-11-26T00:00:00Z"))
                }
            case "limit":
                if let parsed = Int(value), (1...EventService.exportPageLimit).contains(parsed) { limit = parsed } else {
                    errors.append(FieldError(path: name, code: "out_of_range", message: "limit must be a whole number from 1 to \(EventService.exportPageLimit)",
                                             limit: EventService.exportPageLimit))
                }
            default:
                errors.append(FieldError(path: name, code: "unknown_parameter", message: "unknown query parameter \"\(name)\"; known: since, cursor, limit"))
            }
        }
        if !errors.isEmpty { throw Problem.invalidQuery(errors, words) }
        let page = try events.export(after: cursor, since: since, limit: limit)
        var body: [UInt8] = []
        for event in page.events {
            let line: JSON = ["cursor": .string(String(event.sequence)), "id": .string(event.id.description), "campaign_id": event.campaignID.map { .string($0.description) } ?? .null,
                              "variant": event.variant.map(JSON.string) ?? .null, "type": .string(event.type.rawValue), "device_token": event.deviceToken.map(JSON.string) ?? .null,
                              "occurred_at": .time(event.occurredAt),
                              "received_at": .time(event.receivedAt)]
            body += line.serialized()
            body.append(0x0A)
        }
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/x-ndjson")
        headers.add("Cache-Control", "no-store")
        if let next = page.next { headers.add("Herald-Next-Cursor", String(next)) }
        return HTTPResponse(status: 200, headers: headers, body: body)
    }
}

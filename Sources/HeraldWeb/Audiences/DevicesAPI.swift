import HeraldApp
import HeraldCore
import HeraldHTTP
import HeraldJSON

/// `/api/v1/devices`: the apps' backends register, update and forget devices (a `devices`-scope
/// key is enough); people list, count, import and export them.
struct DevicesAPI: Sendable {
    let devices: DeviceService

    static let maximumPageSize = 1000

    func put(_ context: RequestContext) throws -> APIResponse {
        let (device, created) = try devices.register(token: context.parameter("token"), document: try context.jsonBody())
        return APIResponse(status: created ? 201 : 200, body: device.json,
                           headers: created ? [("Location", "/api/v1/devices/\(device.device.token)")] : [])
    }

    func get(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: try devices.get(context.parameter("token")).json)
    }

    /// The topics the device is subscribed to, as FCM lists them: `{"token", "topics": [{"topic", "create_time"}]}`.
    func topics(_ context: RequestContext) throws -> APIResponse {
        let token = context.parameter("token")
        let topics = try devices.topics(of: token)
        return APIResponse(status: 200, body: ["token": .string(token), "topics": .array(topics.map {
            ["topic": .string($0.topic), "create_time": $0.createTime.map(JSON.string) ?? .null]
        })])
    }

    /// `{"fid": "..."}`: the device registered by the URL's token is addressed by this Firebase
    /// installation ID from now on, keeping its attributes, bucket and history. 200 with the
    /// device as it is now (also when a retried call finds it moved already).
    func moveToFID(_ context: RequestContext) throws -> APIResponse {
        let move = try devices.moveToFID(token: context.parameter("token"), document: try context.jsonBody(), by: context.actor)
        return APIResponse(status: 200, body: move.device.json, headers: [("Location", "/api/v1/devices/\(move.device.device.token)")])
    }

    func delete(_ context: RequestContext) throws -> APIResponse {
        try devices.forget(context.parameter("token"))
        return APIResponse(status: 204, body: nil)
    }

    /// Filters `status`, `platform`, `language`, `country`, `q` (part of the token); `limit`, `cursor`.
    func list(_ context: RequestContext) throws -> APIResponse {
        let words = context.words
        var filter = DeviceFilter()
        var limit = 100
        var cursor: String?
        var errors: [FieldError] = []
        for (name, value) in context.request.queryItems {
            func oneOf(_ allowed: [String]) -> String? {
                if allowed.contains(value) { return value }
                errors.append(FieldError(path: name, code: "invalid_value", message: "\(name) is one of \(allowed.joined(separator: ", ")), found \"\(value)\""))
                return nil
            }
            if value.contains("\0") {
                // PostgreSQL text cannot hold NUL, so no device matches it; say so as a query error, not a 422.
                errors.append(FieldError(path: name, code: "nul_character", message: "\(name) contains the NUL character (U+0000), which no device field holds"))
                continue
            }
            switch name {
            case "status": filter.status = oneOf(DeviceStatus.allCases.map(\.rawValue)).flatMap(DeviceStatus.init(rawValue:))
            case "platform": filter.platform = oneOf(DevicePlatform.allCases.map(\.rawValue))
            case "language": filter.language = LanguageTag.primary(value)
            case "country": filter.country = value.uppercased()
            case "q": filter.search = value.isEmpty ? nil : value
            case "cursor":
                if value.isEmpty {
                    errors.append(FieldError(path: "cursor", code: "invalid_cursor", message: "cursor must be a next_cursor value from a previous page"))
                } else {
                    cursor = value
                }
            case "limit":
                if let number = Int(value), (1...Self.maximumPageSize).contains(number) {
                    limit = number
                } else {
                    errors.append(FieldError(path: "limit", code: "out_of_range", message: "limit is a whole number from 1 to \(Self.maximumPageSize)",
                                             limit: Self.maximumPageSize))
                }
            default:
                errors.append(FieldError(path: name, code: "unknown_parameter",
                                         message: "unknown query parameter \"\(name)\"; known: status, platform, language, country, q, limit, cursor"))
            }
        }
        if !errors.isEmpty { throw Problem.invalidQuery(errors, words) }
        let page = try devices.list(filter, after: cursor, limit: limit)
        return APIResponse(status: 200, body: ["items": .array(page.map(\.json)),
                                               "next_cursor": page.count == limit ? page.last.map { .string($0.device.token) } ?? .null : .null])
    }

    /// Devices by status, and active ones by platform, language, country and app version.
    func counts(_ context: RequestContext) throws -> APIResponse {
        let counts = try devices.counts()
        func pairs(_ list: [(String, Int)]) -> JSON { .array(list.map { ["value": .string($0.0), "devices": .number(Double($0.1))] }) }
        return APIResponse(status: 200, body: [
            "active": .number(Double(counts.active)), "invalid": .number(Double(counts.invalid)), "stale": .number(Double(counts.stale)),
            "platforms": pairs(counts.byPlatform), "languages": pairs(counts.byLanguage), "countries": pairs(counts.byCountry),
            "app_versions": pairs(counts.byAppVersion),
        ])
    }

    /// CSV (`text/csv`) or NDJSON (`application/x-ndjson`), a device per row, read as it arrives
    /// (the route streams its body, up to `HERALD_MAX_IMPORT_BYTES`); answers what was stored and
    /// each refused row by its line.
    func importDevices(_ context: RequestContext) throws -> APIResponse {
        let words = context.words
        guard let format = Self.importFormat(context.request.mediaType) else {
            throw Problem.unsupportedMediaType("text/csv or application/x-ndjson", words)
        }
        do {
            let report = try devices.importDevices(format: format, context.bodyParts())
            return APIResponse(status: 200, body: report.json)
        } catch let interrupted as DeviceImportInterrupted {
            let (status, detail) = Self.stopped(interrupted, words: words)
            throw Problem(status: status, code: "import_interrupted", title: "The import stopped before the end of the file", detail: detail,
                          extensions: ["stored_devices": .number(Double(interrupted.storedDevices))])
        }
    }

    static func importFormat(_ mediaType: String?) -> DeviceImportFormat? {
        switch mediaType {
        case "text/csv": .csv
        case "application/x-ndjson", "application/jsonl": .ndjson
        default: nil
        }
    }

    /// Why an upload's import stopped, with the status that says so (400, 408 or 413), and how
    /// many devices it had stored by then.
    static func stopped(_ interrupted: DeviceImportInterrupted, words: Localized) -> (status: Int, detail: String) {
        let cause = interrupted.cause as? RequestBodyError ?? RequestBodyError(.closed, detail: "\(interrupted.cause)")
        let reason = switch cause.reason {
        case .closed: words.text("import.stopped.closed")
        case .timeout: words.text("import.stopped.timeout")
        case .tooLarge: words.text("import.stopped.too_large")
        case .malformed: words.text("import.stopped.malformed")
        }
        return (cause.status, reason + " " + words.plural("import.stopped.stored", count: interrupted.storedDevices))
    }

    /// Subscribes (or, with `"unsubscribe": true`) unsubscribes a token list's devices to a topic
    /// at once (200, what changed), or queues a segment's as background work (202, the job, with
    /// its address to follow its progress).
    func changeTopic(_ context: RequestContext) throws -> APIResponse {
        switch try devices.changeTopic(try context.jsonBody(), by: context.actor) {
        case .changed(let change):
            return APIResponse(status: 200, body: change.json)
        case .queued(let job):
            return APIResponse(status: 202, body: job.json, headers: [("Location", "/api/v1/topic-subscriptions/\(job.id.description)")])
        }
    }

    /// A segment's subscription job and its progress.
    func topicJob(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: try devices.topicJob(context.parameter("id")).json)
    }

    /// Queues the move of every device whose zone changed into its zone's time-zone topic (recipient
    /// time on topics), or answers the job already under way; its progress is the job's.
    func assignTimeZoneTopics(_ context: RequestContext) throws -> APIResponse {
        let (job, _) = try devices.queueTimeZoneTopics(by: context.actor)
        return APIResponse(status: 202, body: job.json, headers: [("Location", "/api/v1/topic-subscriptions/\(job.id.description)")])
    }

    /// Every device as CSV, with a column per property.
    func export(_ context: RequestContext) throws -> HTTPResponse {
        var csv: [UInt8] = []
        try devices.exportCSV { csv.append(contentsOf: $0.utf8) }
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/csv; charset=utf-8")
        headers.add("Content-Disposition", "attachment; filename=\"herald-devices.csv\"")
        headers.add("Cache-Control", "no-store")
        return HTTPResponse(status: 200, headers: headers, body: csv)
    }
}

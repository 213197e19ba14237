import HeraldCore
import HeraldHTTP
import HeraldJSON
import HeraldPostgres

/// `/api/v1/campaigns`: create, read, list, replace, merge-patch and delete campaigns.
struct CampaignsAPI: Sendable {
    let pool: PostgresPool
    let log: Log
    let campaigns = CampaignStore()
    let idempotency = IdempotencyStore()
    let audit = AuditLog()

    static let defaultPageSize = 20
    static let maximumPageSize = 100
    static let maximumIdempotencyKeyLength = 255

    func register(on router: inout Router, access: AccessControl) {
        router.add(.post, "/api/v1/campaigns", access.api(.editor, create))
        router.add(.get, "/api/v1/campaigns", access.api(.viewer) { request, _ in try list(request) })
        router.add(.get, "/api/v1/campaigns/{id}", access.api(.viewer) { request, _ in try get(request) })
        router.add(.put, "/api/v1/campaigns/{id}", access.api(.editor, replace))
        router.add(.patch, "/api/v1/campaigns/{id}", access.api(.editor, patch))
        router.add(.delete, "/api/v1/campaigns/{id}", access.api(.editor, delete))
    }

    // MARK: - Handlers

    func create(_ request: HTTPRequest, _ viewer: Viewer) throws -> APIResponse {
        let spec = try validated(try request.jsonBody())
        guard let key = request.headers["Idempotency-Key"] else {
            // The write and its audit entry commit together.
            let record = try pool.transaction { connection in
                let record = try campaigns.insert(spec, author: viewer.email, on: connection)
                try audit.record("campaign.created", by: viewer, object: ("campaign", record.id), request: request, on: connection)
                return record
            }
            return created(record)
        }
        guard !key.isEmpty, key.utf8.count <= Self.maximumIdempotencyKeyLength else {
            throw Problem.badRequest(code: "invalid_idempotency_key",
                                     "Idempotency-Key must be 1 to \(Self.maximumIdempotencyKeyLength) bytes.")
        }
        let scope = "campaigns.create"
        return try pool.withConnection { connection in
            let hash = try idempotency.sha256(request.body, on: connection)
            if let remembered = try idempotency.find(scope: scope, key: key, on: connection) {
                return try replay(remembered, hash: hash)
            }
            do {
                return try connection.transaction { connection in
                    let record = try campaigns.insert(spec, author: viewer.email, on: connection)
                    try audit.record("campaign.created", by: viewer, object: ("campaign", record.id), request: request, on: connection)
                    try idempotency.remember(scope: scope, key: key, requestSHA256: hash, status: 201,
                                             response: record.json, on: connection)
                    return created(record)
                }
            } catch let error as PostgresError where error.code == .uniqueViolation {
                // A concurrent request with the same key committed first: answer what it answered.
                guard let remembered = try idempotency.find(scope: scope, key: key, on: connection) else { throw error }
                return try replay(remembered, hash: hash)
            }
        }
    }

    func get(_ request: HTTPRequest) throws -> APIResponse {
        let record = try existing(request)
        if let match = request.headers["If-None-Match"], Self.entityTags(match).contains(record.etag) {
            return APIResponse(status: 304, body: nil, headers: [("ETag", record.etag)])
        }
        return APIResponse(status: 200, body: record.json, headers: [("ETag", record.etag)])
    }

    func list(_ request: HTTPRequest) throws -> APIResponse {
        var status: String?
        var limit = Self.defaultPageSize
        var cursor: CampaignCursor?
        var errors: [JSON] = []
        for (name, value) in request.queryItems {
            switch name {
            case "status":
                if CampaignStatus(rawValue: value) == nil {
                    errors.append(["path": "status", "code": "invalid_value",
                                   "message": .string("status must be one of \(CampaignStatus.allCases.map(\.rawValue).joined(separator: ", "))")])
                }
                status = value
            case "limit":
                if let number = Int(value), (1...Self.maximumPageSize).contains(number) {
                    limit = number
                } else {
                    errors.append(["path": "limit", "code": "out_of_range",
                                   "message": .string("limit must be a whole number from 1 to \(Self.maximumPageSize)"),
                                   "limit": .number(Double(Self.maximumPageSize))])
                }
            case "cursor":
                cursor = CampaignCursor(token: value)
                if cursor == nil {
                    errors.append(["path": "cursor", "code": "invalid_cursor",
                                   "message": "cursor must be a next_cursor value from a previous page"])
                }
            default:
                errors.append(["path": .string(name), "code": "unknown_parameter",
                               "message": .string("unknown query parameter \"\(name)\"; known: status, limit, cursor")])
            }
        }
        if !errors.isEmpty {
            throw Problem(status: 400, code: "invalid_query", title: "The query is not valid",
                          detail: "\(errors.count) query parameter\(errors.count == 1 ? " is" : "s are") invalid.",
                          extensions: ["errors": .array(errors)])
        }
        let page = try pool.withConnection { try campaigns.list(status: status, limit: limit, after: cursor, on: $0) }
        var body: JSONObject = ["items": .array(page.campaigns.map(\.json))]
        body["next_cursor"] = page.nextCursor.map { .string($0.token) } ?? .null
        return APIResponse(status: 200, body: .object(body))
    }

    func replace(_ request: HTTPRequest, _ viewer: Viewer) throws -> APIResponse {
        let version = try Self.expectedVersion(request)
        let spec = try validated(try request.jsonBody())
        return try Self.answer(try pool.transaction { connection in
            let outcome = try campaigns.update(id: request.parameters["id"] ?? "", expectedVersion: version, spec: spec, on: connection)
            try audit.record("campaign.updated", outcome, by: viewer, request: request, on: connection)
            return outcome
        })
    }

    /// JSON Merge Patch (RFC 7396) over the campaign's content; the result is validated whole.
    func patch(_ request: HTTPRequest, _ viewer: Viewer) throws -> APIResponse {
        let version = try Self.expectedVersion(request)
        let patch = try request.jsonBody(accepting: ["application/merge-patch+json", "application/json"])
        guard case .object = patch else {
            throw Problem.badRequest(code: "invalid_patch", "A merge patch must be a JSON object.")
        }
        return try Self.answer(try pool.transaction { connection in
            guard let current = try campaigns.find(id: request.parameters["id"] ?? "", on: connection) else {
                throw Problem.notFound("Campaign \(request.parameters["id"] ?? "")")
            }
            let spec = try validated(MergePatch.apply(patch, to: current.spec.toJSON()))
            let outcome = try campaigns.update(id: current.id, expectedVersion: version, spec: spec, on: connection)
            try audit.record("campaign.updated", outcome, by: viewer, request: request, on: connection)
            return outcome
        })
    }

    func delete(_ request: HTTPRequest, _ viewer: Viewer) throws -> APIResponse {
        let version = try Self.expectedVersion(request)
        let id = request.parameters["id"] ?? ""
        let outcome = try pool.transaction { connection in
            let outcome = try campaigns.delete(id: id, expectedVersion: version, on: connection)
            if outcome == .deleted {
                try audit.record("campaign.deleted", by: viewer, object: ("campaign", id), request: request, on: connection)
            }
            return outcome
        }
        switch outcome {
        case .deleted:
            return APIResponse(status: 204, body: nil)
        case .notFound:
            throw Problem.notFound("Campaign \(id)")
        case .versionMismatch(let current):
            throw Self.stale(current)
        case .notADraft(let current):
            throw Problem(status: 409, code: "not_a_draft", title: "Only drafts can be deleted",
                          detail: "Campaign \(current.id) is \(current.status); cancel it instead (POST /api/v1/campaigns/\(current.id)/cancel).",
                          extensions: ["current_status": .string(current.status)])
        }
    }

    // MARK: - Helpers

    func validated(_ json: JSON) throws(Problem) -> CampaignSpec {
        switch CampaignSpec.parse(json) {
        case .success(let spec): return spec
        case .failure(let failure): throw Problem.validation(failure)
        }
    }

    func existing(_ request: HTTPRequest) throws -> CampaignRecord {
        let id = request.parameters["id"] ?? ""
        guard let record = try pool.withConnection({ try campaigns.find(id: id, on: $0) }) else {
            throw Problem.notFound("Campaign \(id)")
        }
        return record
    }

    func created(_ record: CampaignRecord) -> APIResponse {
        APIResponse(status: 201, body: record.json,
                    headers: [("Location", "/api/v1/campaigns/\(record.id)"), ("ETag", record.etag)])
    }

    func replay(_ remembered: IdempotencyStore.Remembered, hash: String) throws -> APIResponse {
        guard remembered.requestSHA256 == hash else {
            throw Problem(status: 422, code: "idempotency_key_reused", title: "Idempotency-Key already used",
                          detail: "This Idempotency-Key was used for a different request body; use a new key for a new request.")
        }
        var headers: [(String, String)] = [("Idempotent-Replayed", "true")]
        if let id = remembered.response["id"]?.stringValue { headers.append(("Location", "/api/v1/campaigns/\(id)")) }
        if let version = remembered.response["version"]?.intValue { headers.append(("ETag", "\"\(version)\"")) }
        return APIResponse(status: remembered.status, body: remembered.response, headers: headers)
    }

    static func answer(_ outcome: CampaignStore.UpdateOutcome) throws -> APIResponse {
        switch outcome {
        case .updated(let record):
            return APIResponse(status: 200, body: record.json, headers: [("ETag", record.etag)])
        case .notFound:
            throw Problem.notFound("The campaign")
        case .versionMismatch(let current):
            throw Self.stale(current)
        case .notEditable(let current):
            throw Problem(status: 409, code: "not_editable", title: "The campaign can no longer be edited",
                          detail: "Campaign \(current.id) is \(current.status); only draft and scheduled campaigns can be edited.",
                          extensions: ["current_status": .string(current.status)])
        case .unschedulable(_, let errors):
            throw Problem.validation(errors, title: "The campaign is scheduled and its new schedule has no time left to send at")
        }
    }

    /// The version named by `If-Match`: required (428) and a single strong tag of ours (400).
    static func expectedVersion(_ request: HTTPRequest) throws(Problem) -> Int {
        guard let header = request.headers["If-Match"] else {
            throw Problem(status: 428, code: "precondition_required", title: "If-Match is required",
                          detail: "Send the campaign's ETag in If-Match so that concurrent edits cannot overwrite each other.")
        }
        let tags = Self.entityTags(header)
        guard tags.count == 1, let tag = tags.first, tag.hasPrefix("\""), tag.hasSuffix("\""),
              let version = Int(tag.dropFirst().dropLast()), version > 0
        else {
            throw Problem.badRequest(code: "invalid_if_match", "If-Match must be one ETag of this API, such as \"3\".")
        }
        return version
    }

    static func stale(_ current: CampaignRecord) -> Problem {
        Problem(status: 412, code: "version_mismatch", title: "The campaign has changed",
                detail: "Someone saved version \(current.version) since you read it; reload, reapply your change and retry.",
                extensions: ["current_version": .number(Double(current.version))], headers: [("ETag", current.etag)])
    }

    static func entityTags(_ header: String) -> [String] {
        header.split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
    }
}

extension Problem {
    /// 422 with every failing field, its machine code, message and limit.
    static func validation(_ failure: ValidationErrors, title: String = "The campaign is not valid") -> Problem {
        let errors: [JSON] = failure.errors.map { error in
            var object: JSONObject = ["path": .string(error.path), "code": .string(error.code), "message": .string(error.message)]
            if let limit = error.limit { object["limit"] = .number(Double(limit)) }
            return .object(object)
        }
        let count = failure.errors.count
        return Problem(status: 422, code: "validation_failed", title: title,
                       detail: count == 1 ? failure.errors[0].message : "\(count) fields are invalid.",
                       extensions: ["errors": .array(errors)])
    }
}

import Foundation
import HeraldApp
import HeraldCore
import HeraldJSON

/// `/api/v1/campaigns`: create, read, list, replace, merge-patch and delete campaigns.
struct CampaignsAPI: Sendable {
    let campaigns: CampaignService
    let segments: SegmentService

    func create(_ context: RequestContext) throws -> APIResponse {
        let spec = try CampaignService.validated(try context.jsonBody())
        guard let key = try context.idempotencyKey() else {
            return created(try campaigns.create(spec, by: context.actor, now: Date()))
        }
        let answer = { (record: CampaignRecord) in IdempotentAnswer(status: 201, body: record.json) }
        switch try campaigns.create(spec, by: context.actor, now: Date(), idempotencyKey: key, body: context.request.body, answer: answer) {
        case .created(let record):
            return created(record)
        case .replayed(let first):
            var headers: [(String, String)] = [("Idempotent-Replayed", "true")]
            if let id = first.body["id"]?.stringValue { headers.append(("Location", "/api/v1/campaigns/\(id)")) }
            if let version = first.body["version"]?.intValue { headers.append(("ETag", "\"\(version)\"")) }
            return APIResponse(status: first.status, body: first.body, headers: headers)
        }
    }

    /// `POST /api/v1/campaigns/{id}/duplicate`: a new draft with the campaign's content, named
    /// "Copy of …" (the composer's Duplicate).
    func duplicate(_ context: RequestContext) throws -> APIResponse {
        created(try campaigns.duplicate(try context.campaignID(), by: context.actor))
    }

    func get(_ context: RequestContext) throws -> APIResponse {
        let record = try campaigns.get(try context.campaignID())
        if let match = context.request.headers["If-None-Match"], Self.entityTags(match).contains(record.etag) {
            return APIResponse(status: 304, body: nil, headers: [("ETag", record.etag)])
        }
        let segmentID = record.segmentID
        let summary = try segmentID.map { Self.summaryJSON(try segments.summaries(Set([$0]))[$0]) }
        if let bytes = record.serializedJSON(segmentSummary: summary) {
            return APIResponse(status: 200, serializedBody: bytes, headers: [("ETag", record.etag)])
        }
        return APIResponse(status: 200, body: try withSegments([record])[0], headers: [("ETag", record.etag)])
    }

    /// Campaigns as the API reads them, a campaign to a segment with `segment_summary`: the
    /// segment's name and its kept reach (`summaryJSON`).
    func withSegments(_ records: [CampaignRecord]) throws -> [JSON] {
        let summaries = try segments.summaries(of: records)
        return records.map { record in
            guard let id = record.segmentID, case .object(var object) = record.json else { return record.json }
            object["segment_summary"] = Self.summaryJSON(summaries[id])
            return .object(object)
        }
    }

    /// A segment's `segment_summary`: its name, and the active devices it reached when last
    /// counted (`devices_counted_at`: on its save, then every few minutes in the background),
    /// all null once it was deleted.
    static func summaryJSON(_ summary: SegmentSummary?) -> JSON {
        ["name": summary.map { .string($0.name) } ?? .null, "devices": summary.map { .number(Double($0.devices)) } ?? .null,
         "devices_counted_at": summary.map { .time($0.countedAt) } ?? .null]
    }

    /// `status` may repeat and hold several values separated by commas; `q` searches names.
    func list(_ context: RequestContext) throws -> APIResponse {
        let words = context.words
        var filter = CampaignFilter()
        var limit = CampaignService.defaultPageSize
        var cursor: CampaignCursor?
        var errors: [FieldError] = []
        for (name, value) in context.request.queryItems {
            switch name {
            case "status":
                for text in value.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingSpaces }) {
                    if let status = CampaignStatus(rawValue: text) {
                        filter.statuses.insert(status)
                    } else {
                        errors.append(FieldError(path: "status", code: "invalid_value",
                                                 message: "status \"\(text)\" is not one of \(CampaignStatus.allCases.map(\.rawValue).joined(separator: ", "))"))
                    }
                }
            case "q":
                if let error = CampaignFilter.searchError(value) { errors.append(error) } else { filter.nameContains = value }
            case "limit":
                if let number = Int(value), (1...CampaignService.maximumPageSize).contains(number) {
                    limit = number
                } else {
                    errors.append(FieldError(path: "limit", code: "out_of_range",
                                             message: "limit must be a whole number from 1 to \(CampaignService.maximumPageSize)",
                                             limit: CampaignService.maximumPageSize))
                }
            case "cursor":
                cursor = CampaignCursor(token: value)
                if cursor == nil {
                    errors.append(FieldError(path: "cursor", code: "invalid_cursor", message: "cursor must be a next_cursor value from a previous page"))
                }
            default:
                errors.append(FieldError(path: name, code: "unknown_parameter", message: "unknown query parameter \"\(name)\"; known: status, q, limit, cursor"))
            }
        }
        if !errors.isEmpty { throw Problem.invalidQuery(errors, words) }
        let page: CampaignPage
        do {
            page = try campaigns.list(filter, limit: limit, after: cursor)
        } catch AppError.invalid(let failure, _) {
            throw Problem.invalidQuery(failure.errors, words)
        }
        return APIResponse(status: 200, body: ["items": .array(try withSegments(page.campaigns)),
                                               "next_cursor": page.nextCursor.map { .string($0.token) } ?? .null])
    }

    func replace(_ context: RequestContext) throws -> APIResponse {
        let version = try Self.expectedVersion(context)
        let spec = try CampaignService.validated(try context.jsonBody())
        return Self.answer(try campaigns.update(try context.campaignID(), expectedVersion: version, spec: spec, by: context.actor, now: Date()))
    }

    /// JSON Merge Patch (RFC 7396) over the campaign's content; the result is validated whole.
    func patch(_ context: RequestContext) throws -> APIResponse {
        let version = try Self.expectedVersion(context)
        let patch = try context.jsonBody(accepting: ["application/merge-patch+json", "application/json"])
        return Self.answer(try campaigns.patch(try context.campaignID(), expectedVersion: version, patch: patch, by: context.actor, now: Date()))
    }

    func delete(_ context: RequestContext) throws -> APIResponse {
        try campaigns.delete(try context.campaignID(), expectedVersion: try Self.expectedVersion(context), by: context.actor)
        return APIResponse(status: 204, body: nil)
    }

    func created(_ record: CampaignRecord) -> APIResponse {
        APIResponse(status: 201, body: record.json, headers: [("Location", "/api/v1/campaigns/\(record.id)"), ("ETag", record.etag)])
    }

    /// A campaign with its ETag.
    static func answer(_ record: CampaignRecord) -> APIResponse {
        APIResponse(status: 200, body: record.json, headers: [("ETag", record.etag)])
    }

    /// The version named by `If-Match`: required (428) and a single strong tag of ours (400).
    static func expectedVersion(_ context: RequestContext) throws(Problem) -> Int {
        guard let header = context.request.headers["If-Match"] else {
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

    static func entityTags(_ header: String) -> [String] {
        header.split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
    }
}

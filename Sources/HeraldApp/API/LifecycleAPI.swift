import Foundation
import HeraldCore
import HeraldHTTP
import HeraldJSON
import HeraldPostgres

/// Scheduling, cancelling and following a campaign: `/schedule`, `/cancel`, `/runs`, `/deliveries`.
struct LifecycleAPI: Sendable {
    let pool: PostgresPool
    let log: Log
    let campaigns = CampaignStore()
    let lifecycle = LifecycleStore()
    let progress = ProgressStore()
    let audit = AuditLog()

    static let deliveryStatuses = ["pending", "retrying", "sent", "failed", "cancelled"]

    func register(on router: inout Router, access: AccessControl) {
        router.add(.post, "/api/v1/campaigns/{id}/schedule", access.api(.publisher, schedule))
        router.add(.post, "/api/v1/campaigns/{id}/cancel", access.api(.publisher, cancel))
        router.add(.get, "/api/v1/campaigns/{id}/runs", access.api(.viewer) { request, _ in try runs(request) })
        router.add(.get, "/api/v1/campaigns/{id}/deliveries", access.api(.viewer) { request, _ in try deliveries(request) })
    }

    /// Arms the campaign: its first run is due at once, or at its schedule's next occurrence.
    func schedule(_ request: HTTPRequest, _ viewer: Viewer) throws -> APIResponse {
        let version = try CampaignsAPI.expectedVersion(request)
        let id = request.parameters["id"] ?? ""
        return try CampaignsAPI.answer(try pool.withConnection { connection in
            guard let current = try campaigns.find(id: id, on: connection) else { throw Problem.notFound("Campaign \(id)") }
            switch Arming.firstRun(of: current.spec, now: Date()) {
            case .failure(let errors): throw Problem.validation(errors, title: "The campaign cannot be scheduled")
            case .success(let due):
                let outcome = try lifecycle.schedule(id: id, expectedVersion: version, nextRunAt: due, on: connection)
                try audit.record("campaign.scheduled", outcome, by: viewer, request: request, on: connection)
                return outcome
            }
        })
    }

    func cancel(_ request: HTTPRequest, _ viewer: Viewer) throws -> APIResponse {
        let version = try CampaignsAPI.expectedVersion(request)
        let id = request.parameters["id"] ?? ""
        let outcome = try pool.withConnection { connection in
            let outcome = try lifecycle.cancel(id: id, expectedVersion: version, on: connection)
            try audit.record("campaign.cancelled", outcome, by: viewer, request: request, on: connection)
            return outcome
        }
        if case .notEditable(let current) = outcome {
            throw Problem(status: 409, code: "not_cancellable", title: "The campaign can no longer be cancelled",
                          detail: "Campaign \(current.id) is \(current.status); only draft, scheduled and sending campaigns can be cancelled.",
                          extensions: ["current_status": .string(current.status)])
        }
        return try CampaignsAPI.answer(outcome)
    }

    func runs(_ request: HTTPRequest) throws -> APIResponse {
        let id = request.parameters["id"] ?? ""
        let runs = try pool.withConnection { connection in
            guard try campaigns.find(id: id, on: connection) != nil else { throw Problem.notFound("Campaign \(id)") }
            return try progress.runs(campaignID: id, on: connection)
        }
        return APIResponse(status: 200, body: ["items": .array(runs)])
    }

    func deliveries(_ request: HTTPRequest) throws -> APIResponse {
        let id = request.parameters["id"] ?? ""
        var status: String?
        var after: Int64 = 0
        var limit = 100
        for (name, value) in request.queryItems {
            switch name {
            case "status" where Self.deliveryStatuses.contains(value): status = value
            case "cursor" where Int64(value).map { $0 >= 0 } == true: after = Int64(value)!
            case "limit" where Int(value).map { (1...500).contains($0) } == true: limit = Int(value)!
            default:
                throw Problem.badRequest(code: "invalid_query",
                                         "Unknown or invalid query parameter \"\(name)\": status is one of \(Self.deliveryStatuses.joined(separator: ", ")), limit is 1 to 500, cursor is a next_cursor.")
            }
        }
        let items = try pool.withConnection { connection in
            guard try campaigns.find(id: id, on: connection) != nil else { throw Problem.notFound("Campaign \(id)") }
            return try progress.deliveries(campaignID: id, status: status, afterID: after, limit: limit, on: connection)
        }
        let next: JSON = items.count == limit ? (items.last?["id"]?.intValue).map { .string(String($0)) } ?? .null : .null
        return APIResponse(status: 200, body: ["items": .array(items), "next_cursor": next])
    }
}

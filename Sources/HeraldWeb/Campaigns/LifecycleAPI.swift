import Foundation
import HeraldApp
import HeraldCore
import HeraldHTTP
import HeraldJSON

/// Scheduling, pausing, resuming, cancelling and following a campaign: `/schedule`, `/pause`,
/// `/resume`, `/cancel`, `/runs`, `/deliveries`.
struct LifecycleAPI: Sendable {
    let campaigns: CampaignService

    /// Arms the campaign: its first run is due at once, or at its schedule's next occurrence.
    func schedule(_ context: RequestContext) throws -> APIResponse {
        let version = try CampaignsAPI.expectedVersion(context)
        return CampaignsAPI.answer(try campaigns.schedule(try context.campaignID(), expectedVersion: version, by: context.actor, now: Date()))
    }

    func cancel(_ context: RequestContext) throws -> APIResponse {
        let version = try CampaignsAPI.expectedVersion(context)
        return CampaignsAPI.answer(try campaigns.cancel(try context.campaignID(), expectedVersion: version, by: context.actor))
    }

    func pause(_ context: RequestContext) throws -> APIResponse {
        let version = try CampaignsAPI.expectedVersion(context)
        return CampaignsAPI.answer(try campaigns.pause(try context.campaignID(), expectedVersion: version, by: context.actor))
    }

    func resume(_ context: RequestContext) throws -> APIResponse {
        let version = try CampaignsAPI.expectedVersion(context)
        return CampaignsAPI.answer(try campaigns.resume(try context.campaignID(), expectedVersion: version, by: context.actor))
    }

    func runs(_ context: RequestContext) throws -> APIResponse {
        APIResponse(status: 200, body: ["items": .array(try campaigns.runs(try context.campaignID()).map(\.json))])
    }

    /// What the report page shows, as JSON, or as CSV with `?format=csv` or `Accept: text/csv`.
    func report(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        var csv = context.request.headers["Accept"]?.split(separator: ",")
            .contains { $0.split(separator: ";").first?.trimmingSpaces.lowercased() == "text/csv" } ?? false
        for (name, value) in context.request.queryItems {
            guard name == "format", value == "csv" || value == "json" else {
                throw Problem.invalidQuery([FieldError(path: name, code: name == "format" ? "invalid_value" : "unknown_parameter",
                                                       message: name == "format" ? "format is csv or json" : "unknown query parameter \"\(name)\"; known: format")], words)
            }
            csv = value == "csv"
        }
        let report = try campaigns.report(try context.campaignID())
        return csv ? CampaignPages.csvResponse(report) : APIResponse(status: 200, body: report.json).httpResponse
    }

    func deliveries(_ context: RequestContext) throws -> APIResponse {
        let words = context.words
        var status: DeliveryStatus?
        var after: Int64 = 0
        var limit = 100
        var errors: [FieldError] = []
        for (name, value) in context.request.queryItems {
            switch name {
            case "status" where DeliveryStatus(rawValue: value) != nil: status = DeliveryStatus(rawValue: value)
            case "cursor" where Int64(value).map { $0 >= 0 } == true: after = Int64(value)!
            case "limit" where Int(value).map { (1...500).contains($0) } == true: limit = Int(value)!
            case "status":
                errors.append(FieldError(path: name, code: "invalid_value",
                                         message: "status must be one of \(DeliveryStatus.allCases.map(\.rawValue).joined(separator: ", "))"))
            case "cursor":
                errors.append(FieldError(path: name, code: "invalid_cursor", message: "cursor must be a next_cursor value from a previous page"))
            case "limit":
                errors.append(FieldError(path: name, code: "out_of_range", message: "limit must be a whole number from 1 to 500", limit: 500))
            default:
                errors.append(FieldError(path: name, code: "unknown_parameter", message: "unknown query parameter \"\(name)\"; known: status, limit, cursor"))
            }
        }
        if !errors.isEmpty { throw Problem.invalidQuery(errors, words) }
        let items = try campaigns.deliveries(try context.campaignID(), status: status, afterID: after, limit: limit)
        let next: JSON = items.count == limit ? items.last.map { .string(String($0.id)) } ?? .null : .null
        return APIResponse(status: 200, body: ["items": .array(items.map(\.json)), "next_cursor": next])
    }
}

import FCMMessage
import Foundation
import HeraldApp
import HeraldCore
import HeraldJSON

/// `/api/v1/frequency-caps` and `/api/v1/control-group`: the project's contact policy (admins
/// change it, anyone reads it) and the control group's comparison with everyone else.
struct ContactPolicyAPI: Sendable {
    let policies: ContactPolicyService

    func caps(_ context: RequestContext) throws -> APIResponse {
        Self.answer(try policies.policy(), Self.capsJSON)
    }

    func replaceCaps(_ context: RequestContext) throws -> APIResponse {
        Self.answer(try policies.setCaps(try context.jsonBody(), expectedVersion: try Self.optionalVersion(context), by: context.actor), Self.capsJSON)
    }

    func controlGroup(_ context: RequestContext) throws -> APIResponse {
        Self.answer(try policies.policy(), Self.controlGroupJSON)
    }

    func replaceControlGroup(_ context: RequestContext) throws -> APIResponse {
        Self.answer(try policies.setControlGroup(try context.jsonBody(), expectedVersion: try Self.optionalVersion(context), by: context.actor),
                    Self.controlGroupJSON)
    }

    /// `?from=&to=` (RFC 3339; by default the last 28 days).
    func report(_ context: RequestContext) throws -> APIResponse {
        let (from, to) = try Self.period(context)
        return APIResponse(status: 200, body: Self.json(try policies.controlGroupReport(from: from, to: to)))
    }

    /// The period a comparison covers: `from` and `to` (RFC 3339), the last 28 days by default.
    static func period(_ context: RequestContext, now: Date = Date()) throws -> (Date, Date) {
        let words = context.words
        var errors: [FieldError] = []
        var times: [String: Date] = [:]
        for (name, value) in context.request.queryItems {
            guard name == "from" || name == "to" else {
                errors.append(FieldError(path: name, code: "unknown_parameter", message: "unknown query parameter \"\(name)\"; known: from, to"))
                continue
            }
            guard RFC3339.isStorable(value), let seconds = RFC3339.secondsSince1970(value) else {
                errors.append(FieldError(path: name, code: "invalid_value", message: "\(name) must be an RFC 3339 time, such as 2026-11-01T00:00:00Z"))
                continue
            }
            times[name] = Date(timeIntervalSince1970: seconds)
        }
        let to = times["to"] ?? now
        let from = times["from"] ?? to.addingTimeInterval(-28 * 86_400)
        if errors.isEmpty, from >= to { errors.append(FieldError(path: "from", code: "out_of_range", message: "from must be before to")) }
        if !errors.isEmpty { throw Problem.invalidQuery(errors, words) }
        return (from, to)
    }

    /// The policy's version in If-Match, when one is given (an empty header gives none).
    static func optionalVersion(_ context: RequestContext) throws -> Int? {
        (context.request.headers["If-Match"] ?? "").trimmingSpaces.isEmpty ? nil : try CampaignsAPI.expectedVersion(context)
    }

    static func answer(_ policy: ContactPolicy, _ json: (ContactPolicy) -> JSON) -> APIResponse {
        APIResponse(status: 200, body: json(policy), headers: [("ETag", "\"\(policy.version)\"")])
    }

    static func capsJSON(_ policy: ContactPolicy) -> JSON {
        var object = policy.caps.toJSON().objectValue ?? [:]
        object["version"] = .number(Double(policy.version))
        object["updated_at"] = JSON.time(policy.updatedAt)
        return .object(object)
    }

    static func controlGroupJSON(_ policy: ContactPolicy) -> JSON {
        ["percent": .number(Double(policy.controlGroup.basisPoints) / 100), "since": JSON.time(policy.controlSince),
         "version": .number(Double(policy.version))]
    }

    static func json(_ report: ControlGroupReport) -> JSON {
        func side(_ side: ControlGroupReport.Side) -> JSON {
            ["devices": .number(Double(side.devices)), "opened": .number(Double(side.opened)), "converted": .number(Double(side.converted))]
        }
        func comparison(_ metric: ControlGroupReport.Metric) -> JSON {
            guard let compared = report.comparison(metric) else { return .null }
            return ["control_rate": .number(compared.controlRate), "everyone_else_rate": .number(compared.restRate),
                    "difference": .number(compared.difference),
                    "interval": [.number(compared.interval.lowerBound), .number(compared.interval.upperBound)],
                    "lift": compared.lift.map(JSON.number) ?? .null, "p_value": .number(compared.pValue),
                    "significant": .bool(compared.pValue < 0.05), "enough_data": .bool(compared.enoughData)]
        }
        return ["from": JSON.time(report.from), "to": JSON.time(report.to), "percent": .number(Double(report.basisPoints) / 100),
                "since": JSON.time(report.since), "control": side(report.control), "everyone_else": side(report.rest),
                "opens": comparison(.opens), "conversions": comparison(.conversions)]
    }
}

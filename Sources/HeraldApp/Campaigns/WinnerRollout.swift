import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Sends an A/B test's winner to the rest of the audience (the holdout's buckets, which got
/// nothing), as a run of its own, once per campaign, and audits it: the one way for a person's
/// "send the winner" and the scheduler's automatic decision alike. Runs in the caller's
/// transaction, on the campaign row it locked.
struct WinnerRollout: Sendable {
    let buckets: AudienceBuckets
    /// With approvals on (`HERALD_APPROVALS`), the roll-out sends the version a publisher
    /// approved, as a run and a one-call send of a template do, and nothing without one.
    var approvalsRequired = false

    func send(_ current: CampaignRecord, variantKey: String, by actor: Actor, now: Date, details: JSONObject = [:],
              on connection: PostgresConnection) throws -> CampaignRecord {
        var spec = try current.spec()
        func refuse(_ detail: String) -> AppError {
            .conflict(code: "winner_not_sendable", title: "The winner cannot be sent to the rest", detail: detail, currentStatus: current.status)
        }
        if approvalsRequired {
            guard let approved = try ApprovalStore().approvedContent(current.id, on: connection), case .success(let parsed) = CampaignSpec.parse(approved) else {
                throw AppError.conflict(code: "approval_required", title: "The campaign is not approved",
                                        detail: "With approvals on (HERALD_APPROVALS), the winner goes to the rest only in a version a publisher approved; campaign \(current.id) has none.",
                                        currentStatus: current.status)
            }
            spec = parsed
        }
        guard spec.variant(variantKey) != nil else {
            throw AppError.invalidField("variant", "campaign has no variant \"\(variantKey)\"; it has \(spec.effectiveVariants.map(\.key).joined(separator: ", "))",
                                        code: "unknown_variant", title: "The variant is not valid")
        }
        guard current.status == .sent || current.status == .partiallyFailed, spec.schedule?.isRecurring != true else {
            throw refuse("Campaign \(current.id) is \(current.status.rawValue); the winner goes to the rest once a one-time test has been sent.")
        }
        if let sent = try CampaignRuns().rolloutVariant(of: current.id, on: connection) {
            throw refuse("The winner (variant \(sent)) has already been sent to the rest of campaign \(current.id)'s audience.")
        }
        // Labelled as a run is, against the day's budget, and counted in it (a rollout the next day sends its labels again).
        spec.options.labels = try LabelDayStore().resolve(spec, campaignID: current.id.description, on: connection)
        if spec.audience.isPerDevice {
            return try sendToDevices(current, spec: spec.forSending, variantKey: variantKey, by: actor, now: now, details: details,
                                     on: connection, refuse: refuse)
        }
        let plan = FanOutPlanner.planRollout(campaign: spec.forSending, variantKey: variantKey, buckets: buckets, campaignID: current.id.description, sendTime: now)
        guard !plan.requests.isEmpty else {
            throw refuse("Nobody is left to send to: " + plan.warnings.joined(separator: "; ") + ". Only a test with a holdout leaves part of the audience.")
        }
        let started = try RunWriter().writeFanOuts(
            [DeliveryStore.PlannedRun(campaignID: current.id, occurrenceText: CampaignService.occurrenceText(now), version: current.version,
                                      plan: plan, nextRun: nil, rolloutVariant: variantKey)], on: connection)
        guard started.first != nil else { throw refuse("A run for this moment already exists; try again.") }
        guard let record = try CampaignStore().find(id: current.id, on: connection) else { throw AppError.notFound(.campaign("\(current.id)")) }
        var entry = details
        entry["variant"] = .string(variantKey)
        entry["requests"] = .number(Double(plan.requests.count))
        entry["buckets"] = .string("\(plan.allocation[0].buckets.lowerBound)..<\(plan.allocation[0].buckets.upperBound)")
        try AuditLog().record(.campaignWinnerSent, by: actor, object: .campaign(current.id), details: entry, on: connection)
        return record
    }

    /// The rollout of a campaign to devices: the winner to each device of the holdout, one request each.
    func sendToDevices(_ current: CampaignRecord, spec: CampaignSpec, variantKey: String, by actor: Actor, now: Date, details: JSONObject,
                       on connection: PostgresConnection, refuse: (String) -> AppError) throws -> CampaignRecord {
        let id = current.id
        guard spec.holdoutPercent > 0,
              let planner = DevicePlanner(rollout: variantKey, of: spec, campaignID: id.description, sendTime: now), planner.reachesAnyone else {
            throw refuse("Nobody is left to send to: the test reached the whole audience. Only a test with a holdout leaves part of it.")
        }
        guard let audience = try RunStarter.devices(of: spec.audience, on: connection) else {
            throw refuse("The campaign's segment has been deleted.")
        }
        let due = DeliveryStore.Due(campaignID: id, content: spec.toJSON(), version: current.version, occurrence: now, occurrenceText: CampaignService.occurrenceText(now))
        let control = try ContactPolicyStore().read(on: connection).controlGroup.forRun(of: spec)
        // Paced, within its sending hours and expiring as the campaign's runs do (not at the
        // recipients' time of the test's schedule, which has passed).
        guard let run = try RunStarter.startDeviceRun(due, spec: spec, audience: audience, rolloutVariant: variantKey, controlGroup: control, waves: nil,
                                                      now: now, on: connection) else {
            throw refuse("A run for this moment already exists; try again.")
        }
        try DeliveryStore().advance([(id, nil)], started: [run], on: connection)
        guard let record = try CampaignStore().find(id: id, on: connection) else { throw AppError.notFound(.campaign("\(id)")) }
        var entry = details
        entry["variant"] = .string(variantKey)
        entry["devices"] = .number(Double(run.deliveries))
        try AuditLog().record(.campaignWinnerSent, by: actor, object: .campaign(id), details: entry, on: connection)
        return record
    }
}

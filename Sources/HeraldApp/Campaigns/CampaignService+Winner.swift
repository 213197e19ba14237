import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

extension CampaignService {
    /// Sends the A/B test's winner to the rest of the audience: once the test has been sent, the
    /// variant chosen goes to the holdout's buckets, which got nothing, as a run of its own. One
    /// rollout per campaign; the decision is in the audit log with the variant.
    public func sendWinner(_ id: CampaignID, variantKey: String, by actor: Actor, now: Date) throws -> CampaignRecord {
        try database.transaction { connection in
            guard let current = try campaigns.find(id: id, on: connection, forUpdate: true) else {
                throw AppError.notFound(what: "Campaign \(id)")
            }
            let spec = try current.spec()
            func refuse(_ detail: String) -> AppError {
                .conflict(code: "winner_not_sendable", title: "The winner cannot be sent to the rest", detail: detail, currentStatus: current.status)
            }
            guard spec.variant(variantKey) != nil else {
                throw AppError.invalidField("variant", "campaign has no variant \"\(variantKey)\"; it has \(spec.effectiveVariants.map(\.key).joined(separator: ", "))",
                                            code: "unknown_variant", title: "The variant is not valid")
            }
            guard current.status == .sent || current.status == .partiallyFailed, spec.schedule?.isRecurring != true else {
                throw refuse("Campaign \(id) is \(current.status.rawValue); the winner goes to the rest once a one-time test has been sent.")
            }
            let rows = try connection.query("SELECT rollout_variant FROM runs WHERE campaign_id = \(id)::uuid AND rollout_variant IS NOT NULL")
            if let sent = try rows.first?.decode(String.self) {
                throw refuse("The winner (variant \(sent)) has already been sent to the rest of campaign \(id)'s audience.")
            }
            if spec.audience.isPerDevice {
                return try sendWinnerToDevices(current, spec: spec, variantKey: variantKey, by: actor, now: now, on: connection, refuse: refuse)
            }
            let plan = FanOutPlanner.planRollout(campaign: spec, variantKey: variantKey, buckets: buckets, campaignID: id.description, sendTime: now)
            guard !plan.requests.isEmpty else {
                throw refuse("Nobody is left to send to: " + plan.warnings.joined(separator: "; ") + ". Only a test with a holdout leaves part of the audience.")
            }
            let started = try DeliveryStore().writeRuns(
                [DeliveryStore.PlannedRun(campaignID: id.description, occurrenceText: Self.occurrenceText(now), plan: plan, nextRun: nil)], on: connection)
            guard let run = started.first else { throw refuse("A run for this moment already exists; try again.") }
            _ = try connection.execute("UPDATE runs SET rollout_variant = \(variantKey) WHERE id = \(run.runID)::uuid")
            guard let record = try campaigns.find(id: id, on: connection) else { throw AppError.notFound(what: "Campaign \(id)") }
            try audit.record(.campaignWinnerSent, by: actor, object: ("campaign", id.description),
                             details: ["variant": .string(variantKey), "requests": .number(Double(plan.requests.count)),
                                       "buckets": .string("\(plan.allocation[0].buckets.lowerBound)..<\(plan.allocation[0].buckets.upperBound)")],
                             on: connection)
            return record
        }
    }

    /// The rollout of a campaign to devices: the winner to each device of the holdout, one request each.
    func sendWinnerToDevices(_ current: CampaignRecord, spec: CampaignSpec, variantKey: String, by actor: Actor, now: Date,
                             on connection: PostgresConnection, refuse: (String) -> AppError) throws -> CampaignRecord {
        let id = current.id
        guard spec.holdoutPercent > 0,
              let planner = DevicePlanner(rollout: variantKey, of: spec, campaignID: id.description, sendTime: now), planner.reachesAnyone else {
            throw refuse("Nobody is left to send to: the test reached the whole audience. Only a test with a holdout leaves part of it.")
        }
        guard let audience = try RunStarter.devices(of: spec.audience, on: connection) else {
            throw refuse("The campaign's segment has been deleted.")
        }
        let due = DeliveryStore.Due(campaignID: id.description, content: spec.toJSON(), occurrence: now, occurrenceText: Self.occurrenceText(now))
        guard let run = try DeviceRunWriter().write(due, audience: audience, planner: planner, rolloutVariant: variantKey, on: connection) else {
            throw refuse("A run for this moment already exists; try again.")
        }
        try DeliveryStore().advance([(id.description, nil)], started: [run], on: connection)
        guard let record = try campaigns.find(id: id, on: connection) else { throw AppError.notFound(what: "Campaign \(id)") }
        try audit.record(.campaignWinnerSent, by: actor, object: ("campaign", id.description),
                         details: ["variant": .string(variantKey), "devices": .number(Double(run.deliveries))], on: connection)
        return record
    }

    /// `now` as the text PostgreSQL reads into the run's `occurrence` (microseconds kept).
    static func occurrenceText(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

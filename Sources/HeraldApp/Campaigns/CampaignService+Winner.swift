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
            let plan = FanOutPlanner.planRollout(campaign: spec.forSending, variantKey: variantKey, buckets: buckets, campaignID: id.description, sendTime: now)
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

    /// `now` as the text PostgreSQL reads into the run's `occurrence` (microseconds kept).
    static func occurrenceText(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

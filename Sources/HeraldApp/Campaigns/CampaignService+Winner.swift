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
                throw AppError.notFound(.campaign("\(id)"))
            }
            return try WinnerRollout(buckets: buckets, approvalsRequired: approvalsRequired).send(current, variantKey: variantKey, by: actor, now: now, on: connection)
        }
    }

    /// `now` as the text PostgreSQL reads into the run's `occurrence` (microseconds kept).
    static func occurrenceText(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

import Foundation
import HeraldCore
import HeraldPostgres

/// The SQL of a campaign's state changes by people: scheduling, pausing, resuming and cancelling. Each runs inside
/// the caller's transaction (the service's, with its audit entry). Both check the caller's version
/// but leave it, and `updated_at`, as they are: those count content writes only.
struct LifecycleStore: Sendable {
    let campaigns = CampaignStore()

    /// Arms a draft or scheduled campaign to start its next run at `nextRunAt`.
    func schedule(id: CampaignID, expectedVersion: Int, nextRunAt: Date, on connection: PostgresConnection) throws -> CampaignStore.UpdateOutcome {
        let rows = try connection.query("""
            UPDATE campaigns SET status = \(constants: [CampaignStatus.scheduled]), next_run_at = \(nextRunAt)
            WHERE id = \(id)::uuid AND version = \(expectedVersion) AND status IN (\(constants: CampaignStatus.editable))
            RETURNING \(fragment: CampaignStore.columns)
            """)
        return try campaigns.outcome(of: rows, id: id, expectedVersion: expectedVersion, on: connection)
    }

    /// Cancels a campaign that has not finished: no further run starts, and its deliveries not yet
    /// sent are cancelled (requests already in flight still complete and are recorded).
    func cancel(id: CampaignID, expectedVersion: Int, on connection: PostgresConnection) throws -> CampaignStore.UpdateOutcome {
        let rows = try connection.query("""
            UPDATE campaigns SET status = \(constants: [CampaignStatus.cancelled]), next_run_at = NULL
            WHERE id = \(id)::uuid AND version = \(expectedVersion) AND status IN (\(constants: CampaignStatus.cancellable))
            RETURNING \(fragment: CampaignStore.columns)
            """)
        let outcome = try campaigns.outcome(of: rows, id: id, expectedVersion: expectedVersion, on: connection)
        if case .updated = outcome { try CampaignRuns().cancel(id, on: connection) }
        return outcome
    }

    /// Pauses a scheduled or sending campaign: no run starts and its deliveries are not claimed
    /// (rounds already claimed complete and are recorded). What it was is kept for resuming.
    func pause(id: CampaignID, expectedVersion: Int, on connection: PostgresConnection) throws -> CampaignStore.UpdateOutcome {
        let rows = try connection.query("""
            UPDATE campaigns SET paused_from = status, status = \(constants: [CampaignStatus.paused])
            WHERE id = \(id)::uuid AND version = \(expectedVersion) AND status IN (\(constants: CampaignStatus.pausable))
            RETURNING \(fragment: CampaignStore.columns)
            """)
        return try campaigns.outcome(of: rows, id: id, expectedVersion: expectedVersion, on: connection)
    }

    /// Resumes a paused campaign to what it was; its waiting deliveries are claimable again (every
    /// worker is told at once) and a run that fell due meanwhile starts.
    func resume(id: CampaignID, expectedVersion: Int, on connection: PostgresConnection) throws -> CampaignStore.UpdateOutcome {
        let rows = try connection.query("""
            UPDATE campaigns SET status = paused_from, paused_from = NULL
            WHERE id = \(id)::uuid AND version = \(expectedVersion) AND status = \(constants: [CampaignStatus.paused]) AND paused_from IS NOT NULL
            RETURNING \(fragment: CampaignStore.columns)
            """)
        let outcome = try campaigns.outcome(of: rows, id: id, expectedVersion: expectedVersion, on: connection)
        if case .updated(let record) = outcome {
            if let delivery = try? record.spec().delivery, delivery.spacingSeconds(requests: 2) != nil, delivery.recipientTime == nil {
                try CampaignRuns().respace(id, on: connection)
            }
            _ = try connection.query("SELECT pg_notify(\(DeliveryStore.deliveryChannel), '')")
        }
        return outcome
    }
}

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
            UPDATE campaigns SET status = \(CampaignStatus.scheduled), next_run_at = \(nextRunAt)
            WHERE id = \(id)::uuid AND version = \(expectedVersion) AND status = ANY(\(CampaignStatus.editable))
            RETURNING \(fragment: CampaignStore.columns)
            """)
        return try campaigns.outcome(of: rows, id: id, expectedVersion: expectedVersion, on: connection)
    }

    /// Cancels a campaign that has not finished: no further run starts, and its deliveries not yet
    /// sent are cancelled (requests already in flight still complete and are recorded).
    func cancel(id: CampaignID, expectedVersion: Int, on connection: PostgresConnection) throws -> CampaignStore.UpdateOutcome {
        let rows = try connection.query("""
            UPDATE campaigns SET status = \(CampaignStatus.cancelled), next_run_at = NULL
            WHERE id = \(id)::uuid AND version = \(expectedVersion) AND status = ANY(\(CampaignStatus.cancellable))
            RETURNING \(fragment: CampaignStore.columns)
            """)
        let outcome = try campaigns.outcome(of: rows, id: id, expectedVersion: expectedVersion, on: connection)
        if case .updated = outcome {
            // The runs first: a scheduler planning a chunk of one holds its row until the chunk
            // commits, so the deliveries cancelled next include that chunk's, and no more are planned.
            _ = try connection.execute("""
                UPDATE runs SET status = \(RunStatus.cancelled), finished_at = now(), planning = false
                WHERE campaign_id = \(id)::uuid AND status = \(RunStatus.sending)
                """)
            // The lease stays: a worker whose request was in flight still records that it was sent.
            _ = try connection.execute("""
                UPDATE deliveries SET status = \(DeliveryStatus.cancelled), updated_at = now()
                WHERE campaign_id = \(id)::uuid AND status = ANY(\(DeliveryStatus.open))
                """)
            try StreamedRunStore().drop(campaign: id.description, as: .cancelled, on: connection)
        }
        return outcome
    }

    /// Pauses a scheduled or sending campaign: no run starts and its deliveries are not claimed
    /// (rounds already claimed complete and are recorded). What it was is kept for resuming.
    func pause(id: CampaignID, expectedVersion: Int, on connection: PostgresConnection) throws -> CampaignStore.UpdateOutcome {
        let rows = try connection.query("""
            UPDATE campaigns SET paused_from = status, status = \(CampaignStatus.paused)
            WHERE id = \(id)::uuid AND version = \(expectedVersion) AND status = ANY(\(CampaignStatus.pausable))
            RETURNING \(fragment: CampaignStore.columns)
            """)
        return try campaigns.outcome(of: rows, id: id, expectedVersion: expectedVersion, on: connection)
    }

    /// Resumes a paused campaign to what it was; its waiting deliveries are claimable again (every
    /// worker is told at once) and a run that fell due meanwhile starts.
    func resume(id: CampaignID, expectedVersion: Int, on connection: PostgresConnection) throws -> CampaignStore.UpdateOutcome {
        let rows = try connection.query("""
            UPDATE campaigns SET status = paused_from, paused_from = NULL
            WHERE id = \(id)::uuid AND version = \(expectedVersion) AND status = \(CampaignStatus.paused) AND paused_from IS NOT NULL
            RETURNING \(fragment: CampaignStore.columns)
            """)
        let outcome = try campaigns.outcome(of: rows, id: id, expectedVersion: expectedVersion, on: connection)
        if case .updated(let record) = outcome {
            if let delivery = try? record.spec().delivery, delivery.spacingSeconds(requests: 2) != nil, delivery.recipientTime == nil {
                try respace(id, on: connection)
            }
            _ = try connection.query("SELECT pg_notify(\(DeliveryStore.deliveryChannel), '')")
        }
        return outcome
    }

    /// A spread campaign resumed goes on at its spread: what fell due while it was paused would
    /// otherwise go out in one burst. Each open run's waiting requests move later by as long as its
    /// earliest is overdue, so the first goes now and the rest keep their spacing. (Recipient-time
    /// waves keep their local times instead.)
    func respace(_ id: CampaignID, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            UPDATE deliveries d SET next_attempt_at = d.next_attempt_at + late.by
            FROM (SELECT run_id, now() - min(next_attempt_at) AS by FROM deliveries
                  WHERE campaign_id = \(id)::uuid AND status = ANY(\(DeliveryStatus.open)) AND lease_expires_at IS NULL
                  GROUP BY run_id HAVING min(next_attempt_at) < now()) AS late
            WHERE d.run_id = late.run_id AND d.status = ANY(\(DeliveryStatus.open)) AND d.lease_expires_at IS NULL
            """)
    }
}

import Foundation
import HeraldPostgres

/// The SQL of a campaign's state changes by people: scheduling and cancelling.
struct LifecycleStore: Sendable {
    /// Arms a draft or scheduled campaign to start its next run at `nextRunAt`.
    func schedule(id: String, expectedVersion: Int, nextRunAt: Date, on connection: PostgresConnection) throws -> CampaignStore.UpdateOutcome {
        guard CampaignStore.isUUID(id) else { return .notFound }
        let rows = try connection.query("""
            UPDATE campaigns SET status = 'scheduled', next_run_at = \(nextRunAt), version = version + 1, updated_at = now()
            WHERE id = \(id)::uuid AND version = \(expectedVersion) AND status IN ('draft', 'scheduled')
            RETURNING \(literal: CampaignStore.columns)
            """)
        return try CampaignStore().outcome(of: rows, id: id, expectedVersion: expectedVersion, on: connection)
    }

    /// Cancels a campaign that has not finished: no further run starts, and its deliveries not yet
    /// sent are cancelled (requests already in flight still complete and are recorded).
    func cancel(id: String, expectedVersion: Int, on connection: PostgresConnection) throws -> CampaignStore.UpdateOutcome {
        guard CampaignStore.isUUID(id) else { return .notFound }
        return try connection.transaction { connection in
            let rows = try connection.query("""
                UPDATE campaigns SET status = 'cancelled', next_run_at = NULL, version = version + 1, updated_at = now()
                WHERE id = \(id)::uuid AND version = \(expectedVersion) AND status IN ('draft', 'scheduled', 'sending')
                RETURNING \(literal: CampaignStore.columns)
                """)
            let outcome = try CampaignStore().outcome(of: rows, id: id, expectedVersion: expectedVersion, on: connection)
            if case .updated = outcome {
                // The lease stays: a worker whose request was in flight still records that it was sent.
                _ = try connection.execute("""
                    UPDATE deliveries SET status = 'cancelled', updated_at = now()
                    WHERE campaign_id = \(id)::uuid AND status IN ('pending', 'retrying')
                    """)
                _ = try connection.execute("""
                    UPDATE runs SET status = 'cancelled', finished_at = now() WHERE campaign_id = \(id)::uuid AND status = 'sending'
                    """)
            }
            return outcome
        }
    }
}

import HeraldCore
import HeraldPostgres

/// What a campaign's lifecycle and its devices' changes do to its runs and requests: the
/// engine's own SQL, which the services call (a service writes no run or request itself; an
/// architecture test holds it). Each runs in the caller's transaction.
struct CampaignRuns: Sendable {
    /// A cancelled campaign's runs end and its requests not yet sent are cancelled. The runs
    /// first: a scheduler planning a chunk of one holds its row until the chunk commits, so the
    /// requests cancelled next include that chunk's, and no more are planned. A request in flight
    /// keeps its lease: the worker still records that it was sent.
    func cancel(_ id: CampaignID, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            UPDATE runs SET status = \(constants: [RunStatus.cancelled]), finished_at = now(), planning = false
            WHERE campaign_id = \(id)::uuid AND status = \(constants: [RunStatus.sending])
            """)
        _ = try connection.execute("""
            UPDATE deliveries SET status = \(constants: [DeliveryStatus.cancelled]), updated_at = now()
            WHERE campaign_id = \(id)::uuid AND status IN (\(constants: DeliveryStatus.open))
            """)
        try StreamedRunStore().drop(campaign: id, as: .cancelled, on: connection)
    }

    /// A spread campaign resumed goes on at its spread: what fell due while it was paused would
    /// otherwise go out in one burst. Each open run's waiting requests move later by as long as its
    /// earliest is overdue, so the first goes now and the rest keep their spacing.
    func respace(_ id: CampaignID, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            UPDATE deliveries d SET next_attempt_at = d.next_attempt_at + late.by
            FROM (SELECT run_id, now() - min(next_attempt_at) AS by FROM deliveries
                  WHERE campaign_id = \(id)::uuid AND status IN (\(constants: DeliveryStatus.open)) AND lease_expires_at IS NULL
                  GROUP BY run_id HAVING min(next_attempt_at) < now()) AS late
            WHERE d.run_id = late.run_id AND d.status IN (\(constants: DeliveryStatus.open)) AND d.lease_expires_at IS NULL
            """)
    }

    /// The variant a winner's roll-out of the campaign sent, if one did.
    func rolloutVariant(of id: CampaignID, on connection: PostgresConnection) throws -> String? {
        try connection.query("SELECT rollout_variant FROM runs WHERE campaign_id = \(id)::uuid AND rollout_variant IS NOT NULL")
            .first?.decode(String.self)
    }

    /// A device moved from `token` to `fid`: its requests not sent yet are re-aimed at the FID (the
    /// target, and the first member of every rendered message); sent ones keep the target they
    /// were sent to. Its failures go with it, and streamed runs follow it. Returns how many requests and failures moved.
    func reaim(_ token: DeviceToken, to fid: DeviceToken, on connection: PostgresConnection) throws -> (deliveries: Int, failures: Int) {
        let deliveries = try connection.execute("""
            UPDATE deliveries SET device_token = \(fid),
                target = CASE WHEN status IN (\(constants: DeliveryStatus.open)) THEN jsonb_build_object('fid', \(fid)::text) ELSE target END,
                body = CASE WHEN status IN (\(constants: DeliveryStatus.open)) AND starts_with(body, '{"token":' || to_json(\(token)::text)::text)
                            THEN '{"fid":' || to_json(\(fid)::text)::text || substr(body, length('{"token":' || to_json(\(token)::text)::text) + 1)
                            ELSE body END
            WHERE device_token = \(token)
            """)
        let failures = try connection.execute("UPDATE delivery_failures SET device_token = \(fid) WHERE device_token = \(token)")
        // Streamed runs reading their audiences in token order send it once, under one name or the other.
        try StreamedRunStore().followMove(from: token, to: fid, on: connection)
        return (deliveries, failures)
    }
}

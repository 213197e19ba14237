import HeraldCore
import HeraldPostgres

extension CampaignRuns {
    /// The engine's part of forgetting a device (`DeviceErasure`): its token leaves every run.
    /// Its failures and skips are deleted; its requests keep their counts but lose its token and
    /// message, and one not sent yet is cancelled; a run's frozen content and audience lose it
    /// from their lists of tokens (the rest sends on); a batch waiting to be tried again names
    /// `(forgotten)`, which no device is; and a position in token order that was the device
    /// becomes `before` (the device before it, or the empty string), which reads the same now.
    /// - Parameter names: every identifier the device is being forgotten by (its FID and the
    ///   token it moved from), taken out of the runs' JSON together.
    func forget(_ token: DeviceToken, among names: Set<DeviceToken>, before: DeviceToken?, on connection: PostgresConnection) throws {
        _ = try connection.execute("DELETE FROM delivery_failures WHERE device_token = \(token)")
        _ = try connection.execute("DELETE FROM run_skips WHERE token = \(token)")
        _ = try connection.execute("""
            UPDATE deliveries SET device_token = NULL, target = '{"token": "(forgotten)"}', body = '',
                status = CASE WHEN status IN (\(constants: DeliveryStatus.open)) THEN \(DeliveryStatus.cancelled) ELSE status END
            WHERE device_token = \(token)
            """)
        try Self.runsJSON.rewrite(naming: token.description, forgetting: Set(names.map(\.description)), on: connection)
        _ = try connection.execute("""
            UPDATE device_batches SET tokens = array_replace(tokens, \(token), \(DeviceErasure.placeholder)) WHERE tokens @> ARRAY[\(token)::text]
            """)
        let position = before ?? DeviceToken("")
        // Only a run still reading its audience keeps a position (found by `runs_planning`).
        _ = try connection.execute("UPDATE runs SET plan_after = \(position) WHERE planning AND plan_after = \(token)")
        _ = try connection.execute("UPDATE device_batches SET after_token = \(position) WHERE after_token = \(token)")
        // A batch's range (after_token, last_token] that ended at the device ends at the one
        // before it, or is left empty.
        _ = try connection.execute("""
            UPDATE device_batches SET last_token = CASE WHEN after_token IS NULL OR \(position)::text > after_token THEN \(position)::text ELSE after_token END
            WHERE last_token = \(token)
            """)
    }

    static let runsJSON = ErasedJSON(table: "runs", columns: ["content", "audience"],
                                     condition: "(content ? 'tokens' AND content -> 'tokens' ? $1) OR (audience ? 'tokens' AND audience -> 'tokens' ? $1)")
}

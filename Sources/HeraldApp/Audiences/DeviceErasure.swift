import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Forgetting a device (an erasure request, `DELETE /api/v1/devices/{token}`), in one transaction:
/// its row, and its identifiers (its token or FID, and the token it moved from) wherever Herald
/// kept them. Counts stay; what named the device names `(forgotten)` or nothing:
///
/// - runs' requests, failures and skips (`CampaignRuns.forget`); the messages it got
///   (`touch_batches`' keys); the app's own events (deleted) and a campaign's (kept, unnamed);
///   the app events it reported and its place in each journey (deleted);
/// - campaigns' lists of tokens (a token-list campaign, a one-call send's campaign), as edited and
///   as approved, and each run's frozen content and audience: the token leaves the list, the rest
///   stays (a list left empty is refused when the campaign is next scheduled, saying why);
/// - the answers kept for `Idempotency-Key`s (a replay answers `(forgotten)` for it), webhook
///   deliveries' bodies (`device.invalidated`, the journey events), the audit log's entries about it, topic jobs'
///   failures, and the test devices list;
/// - positions in token order that a run, a batch or a topic job keeps (`plan_after`,
///   `after_token`, `last_token`, `touch_batches`' ranges): moved to the next device before or
///   after it, which reads the same devices now that it is gone.
///
/// Its personal values leave the segment counts at the next census fold (`DeviceService.forget`
/// folds at once). `ErasureTests` holds this against every text column of the schema.
struct DeviceErasure: Sendable {
    static let placeholder = "(forgotten)"

    /// False when no device has `token`.
    func erase(_ token: String, on connection: PostgresConnection) throws -> Bool {
        try connection.transaction { connection in
            guard let row = try connection.query("DELETE FROM devices WHERE token = \(token) RETURNING bucket_key").first else { return false }
            // A device moved to its FID keeps the token it moved from as its bucket key; campaigns
            // may still name it by that token.
            let names = Set([token] + [try row.decode(String?.self, column: "bucket_key")].compactMap { $0 })
            // Its rows are deleted first: a statement that waits for a row another transaction
            // holds (a journey's advance) reads what that one wrote (its webhook) once it commits,
            // so the JSON rewritten after them misses nothing written meanwhile.
            for name in names.sorted() { try forget(name, forgetting: names, on: connection) }
            for name in names.sorted() {
                for holder in Self.holders { try holder.rewrite(naming: name, forgetting: names, on: connection) }
                _ = try connection.execute("""
                    UPDATE audit_log SET object_id = \(Self.placeholder) WHERE object_type = 'device' AND object_id = \(name)
                    """)
            }
            return true
        }
    }

    /// The JSON that may name the device outside the engine's tables (the engine rewrites its
    /// own: `CampaignRuns.forget`). The audit log's rows are found by their `object_id`, which is
    /// rewritten after them.
    static let holders = [
        ErasedJSON(table: "campaigns", columns: ["content", "approved_content"],
                   condition: "(content ? 'tokens' AND content -> 'tokens' ? $1) OR (approved_content ? 'tokens' AND approved_content -> 'tokens' ? $1)"),
        ErasedJSON(table: "idempotency_keys", columns: ["response"], condition: """
            (response ? 'tokens' AND response -> 'tokens' ? $1)
            OR (response ? 'recipients' AND response -> 'recipients' @> jsonb_build_array(jsonb_build_object('token', $1::text)))
            OR (response ? 'recipients' AND response -> 'recipients' @> jsonb_build_array(jsonb_build_object('fid', $1::text)))
            """),
        // Every event about a device names it as `data.device` (`device.invalidated`, the journey events).
        ErasedJSON(table: "webhook_deliveries", columns: ["body"], text: true,
                   condition: "coalesce(body::jsonb #>> '{data,device,token}', body::jsonb #>> '{data,device,fid}') = $1"),
        ErasedJSON(table: "audit_log", columns: ["details"], condition: "object_type = 'device' AND object_id = $1"),
        ErasedJSON(table: "topic_subscription_jobs", columns: ["failures"],
                   condition: "failures @> jsonb_build_array(jsonb_build_object('token', $1::text))"),
    ]

    /// Everything that names `name` by itself, in a column of its own.
    private func forget(_ name: String, forgetting names: Set<String>, on connection: PostgresConnection) throws {
        let (before, after) = try neighbours(of: name, on: connection)
        try CampaignRuns().forget(DeviceToken(name), among: Set(names.map(DeviceToken.init)), before: before.map(DeviceToken.init), on: connection)
        // The app's own events are the device's alone; a campaign's stay counted without it.
        _ = try connection.execute("DELETE FROM events WHERE device_token = \(name) AND campaign_id IS NULL")
        _ = try connection.execute("UPDATE events SET device_token = NULL WHERE device_token = \(name)")
        // What it did and where it was in each journey.
        try AppEventStore().forget(name, on: connection)
        _ = try connection.execute("DELETE FROM journey_states WHERE device_token = \(name)")
        _ = try connection.execute("DELETE FROM journey_dates WHERE device_token = \(name)")
        _ = try connection.execute("DELETE FROM test_devices WHERE token = \(name)")
        // A topic job's position, as a run's: the device before it reads the same now.
        _ = try connection.execute("UPDATE topic_subscription_jobs SET after_token = \(before ?? "") WHERE after_token = \(name)")
        try DeviceTouchStore().erase(name, before: before, after: after, on: connection)
    }

    /// The registered devices just before and just after `name` in token order.
    private func neighbours(of name: String, on connection: PostgresConnection) throws -> (before: String?, after: String?) {
        let row = try connection.query("""
            SELECT (SELECT max(token) FROM devices WHERE token < \(name)) AS before, (SELECT min(token) FROM devices WHERE token > \(name)) AS after
            """).first
        return (try row?.decode(String?.self, column: "before") ?? nil, try row?.decode(String?.self, column: "after") ?? nil)
    }
}

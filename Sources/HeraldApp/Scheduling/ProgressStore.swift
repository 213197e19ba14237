import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Reads of a campaign's runs and deliveries, for the progress API and the report page.
struct ProgressStore: Sendable {
    /// Runs newest first, each with per-variant counts of deliveries by state.
    func runs(campaignID: String, on connection: PostgresConnection) throws -> [JSON] {
        guard CampaignStore.isUUID(campaignID) else { return [] }
        let rows = try connection.query("""
            SELECT r.id::text, r.status, r.planned, r.warnings::text,
                   \(utc: "r.occurrence"),
                   \(utc: "r.started_at"),
                   \(utc: "r.finished_at"),
                   coalesce((SELECT json_object_agg(variant_key, counts)::text FROM (
                       SELECT variant_key, json_build_object(
                           'planned', count(*),
                           \(DeliveryStatus.sent), count(*) FILTER (WHERE status = \(DeliveryStatus.sent)),
                           \(DeliveryStatus.failed), count(*) FILTER (WHERE status = \(DeliveryStatus.failed)),
                           \(DeliveryStatus.retrying), count(*) FILTER (WHERE status = \(DeliveryStatus.retrying)),
                           \(DeliveryStatus.pending), count(*) FILTER (WHERE status = \(DeliveryStatus.pending)),
                           \(DeliveryStatus.cancelled), count(*) FILTER (WHERE status = \(DeliveryStatus.cancelled))) AS counts
                       FROM deliveries WHERE run_id = r.id GROUP BY variant_key) v), '{}')
            FROM runs r WHERE r.campaign_id = \(campaignID)::uuid ORDER BY r.occurrence DESC LIMIT 100
            """)
        return try rows.map { row in
            var run: JSONObject = [
                "id": .string(try row.decode(String.self, at: 0)),
                "status": .string(try row.decode(String.self, at: 1)),
                "planned": .number(Double(try row.decode(Int.self, at: 2))),
                "warnings": try JSON.parse(try row.decode(String.self, at: 3)),
                "due_at": .string(try row.decode(String.self, at: 4)),
                "started_at": .string(try row.decode(String.self, at: 5)),
            ]
            run["finished_at"] = try row.decode(String?.self, at: 6).map { .string($0) } ?? .null
            run["variants"] = try JSON.parse(try row.decode(String.self, at: 7))
            return .object(run)
        }
    }

    /// Deliveries in id order after `afterID`, optionally of one status.
    func deliveries(campaignID: String, status: DeliveryStatus?, afterID: Int64, limit: Int, on connection: PostgresConnection) throws -> [JSON] {
        guard CampaignStore.isUUID(campaignID) else { return [] }
        let rows = try connection.query("""
            SELECT id, run_id::text, variant_key, target::text, status, attempts, message_name, error_code, error_message,
                   \(utc: "sent_at"),
                   \(utc: "next_attempt_at")
            FROM deliveries
            WHERE campaign_id = \(campaignID)::uuid AND id > \(afterID) AND (\(status)::text IS NULL OR status = \(status))
            ORDER BY id LIMIT \(limit)
            """)
        return try rows.map { row in
            let status = try row.decode(String.self, at: 4)
            var delivery: JSONObject = [
                "id": .number(Double(try row.decode(Int64.self, at: 0))),
                "run_id": .string(try row.decode(String.self, at: 1)),
                "variant": .string(try row.decode(String.self, at: 2)),
                "target": try JSON.parse(try row.decode(String.self, at: 3)),
                "status": .string(status),
                "attempts": .number(Double(try row.decode(Int.self, at: 5))),
            ]
            if let name = try row.decode(String?.self, at: 6) { delivery["message_name"] = .string(name) }
            if let code = try row.decode(String?.self, at: 7) {
                delivery["error"] = ["code": .string(code), "message": .string(try row.decode(String?.self, at: 8) ?? "")]
            }
            if let sent = try row.decode(String?.self, at: 9) { delivery["sent_at"] = .string(sent) }
            if DeliveryStatus(rawValue: status).map(DeliveryStatus.open.contains) == true {
                delivery["next_attempt_at"] = .string(try row.decode(String.self, at: 10))
            }
            return .object(delivery)
        }
    }
}

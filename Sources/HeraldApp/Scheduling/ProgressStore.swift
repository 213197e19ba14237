import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Reads of a campaign's runs and deliveries, for the progress API and the report page.
struct ProgressStore: Sendable {
    /// Runs newest first, each with per-variant counts of deliveries by state.
    func runs(campaignID: CampaignID, on connection: PostgresConnection) throws -> [JSON] {
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
            let (id, status, planned, warnings, due, started, finished, variants) =
                try row.decode((String, RunStatus, Int, String, String, String, String?, String).self)
            return [
                "id": .string(id), "status": .string(status.rawValue), "planned": .number(Double(planned)),
                "warnings": try JSON.parse(warnings), "due_at": .string(due), "started_at": .string(started),
                "finished_at": finished.map { .string($0) } ?? .null, "variants": try JSON.parse(variants),
            ]
        }
    }

    /// Deliveries in id order after `afterID`, optionally of one status.
    func deliveries(campaignID: CampaignID, status: DeliveryStatus?, afterID: Int64, limit: Int, on connection: PostgresConnection) throws -> [JSON] {
        let rows = try connection.query("""
            SELECT id, run_id::text, variant_key, target::text, status, attempts, message_name, error_code, error_message,
                   \(utc: "sent_at"),
                   \(utc: "next_attempt_at")
            FROM deliveries
            WHERE campaign_id = \(campaignID)::uuid AND id > \(afterID) AND (\(status)::text IS NULL OR status = \(status))
            ORDER BY id LIMIT \(limit)
            """)
        return try rows.map { row in
            let (id, runID, variant, target, status, attempts, name, code, message, sent, nextAttempt) =
                try row.decode((Int64, String, String, String, DeliveryStatus, Int, String?, String?, String?, String?, String).self)
            var delivery: JSONObject = [
                "id": .number(Double(id)), "run_id": .string(runID), "variant": .string(variant),
                "target": try JSON.parse(target), "status": .string(status.rawValue), "attempts": .number(Double(attempts)),
            ]
            if let name { delivery["message_name"] = .string(name) }
            if let code { delivery["error"] = ["code": .string(code), "message": .string(message ?? "")] }
            if let sent { delivery["sent_at"] = .string(sent) }
            if DeliveryStatus.open.contains(status) { delivery["next_attempt_at"] = .string(nextAttempt) }
            return .object(delivery)
        }
    }
}

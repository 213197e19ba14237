import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// The delivery controls the scheduler keeps on open runs: their latest-delivery time and their
/// sending hours.
extension DeliveryStore {
    /// Expires what is left of runs past their latest-delivery time, and the deliveries past
    /// their own (a recipient-time wave's), and closes the runs that leaves finished.
    func expireLateRuns(on connection: PostgresConnection) throws {
        try connection.transaction { connection in
            // A run past its end plans no more: what it planned expires, and it closes.
            let stopped = try connection.query("""
                UPDATE runs SET planning = false WHERE planning AND status = \(constants: [RunStatus.sending]) AND expires_at <= now() RETURNING id
                """).map { try $0.decode(RunID.self, at: 0) }
            let streamed = try connection.query("""
                SELECT id FROM runs WHERE kind = \(constants: [RunKind.devicesStreamed]) AND status = \(constants: [RunStatus.sending]) AND expires_at <= now()
                """).map { try $0.decode(RunID.self, at: 0) }
            if !streamed.isEmpty { try StreamedRunStore().drop(runs: streamed, as: .expired, on: connection) }
            let runIDs = try connection.query("""
                UPDATE deliveries d SET status = \(constants: [DeliveryStatus.expired]), updated_at = now()
                FROM runs r
                WHERE r.id = d.run_id AND r.status = \(constants: [RunStatus.sending]) AND r.expires_at <= now() AND d.status IN (\(constants: DeliveryStatus.open))
                RETURNING d.run_id
                """).map { try $0.decode(RunID.self, at: 0) }
            let waveRunIDs = try connection.query("""
                UPDATE deliveries d SET status = \(constants: [DeliveryStatus.expired]), updated_at = now()
                -- The open statuses as constants in the statement, so that the partial index deliveries_expiring serves it.
                WHERE d.expires_at <= now() AND d.status IN (\(constants: DeliveryStatus.open))
                RETURNING d.run_id
                """).map { try $0.decode(RunID.self, at: 0) }
            try closeRuns(Array(Set(runIDs + waveRunIDs + stopped + streamed)), on: connection)
        }
    }

    /// Open runs whose sending hours closed, with their campaign's content, for the next stretch.
    func runsWithClosedWindows(on connection: PostgresConnection) throws -> [(runID: RunID, content: JSON)] {
        try connection.query("""
            SELECT r.id, c.content::text FROM runs r JOIN campaigns c ON c.id = r.campaign_id
            WHERE r.status = \(constants: [RunStatus.sending]) AND r.window_closes_at <= now()
            """).map { row in
            let (id, content) = try row.decode((RunID, String).self, columns: "id", "content")
            return (id, try JSON.parse(content))
        }
    }

    /// Moves each run on to its next stretch of sending hours.
    func moveWindows(_ windows: [(runID: RunID, interval: SendingWindow.Interval)], on connection: PostgresConnection) throws {
        guard !windows.isEmpty else { return }
        _ = try connection.execute("""
            UPDATE runs r SET window_opens_at = to_timestamp(x.o::float8), window_closes_at = to_timestamp(x.c::float8)
            FROM unnest(\(windows.map(\.runID)), \(windows.map { Self.epoch($0.interval.opens) }), \(windows.map { Self.epoch($0.interval.closes) }))
                 AS x(id, o, c)
            WHERE r.id = x.id::uuid
            """)
        _ = try connection.query("SELECT pg_notify(\(Self.deliveryChannel), '')")
    }

    /// Seconds until the next delivery control falls due (a run expires, a window opens or
    /// closes), for the scheduler's wait; nil when none is pending.
    func secondsUntilNextControl(on connection: PostgresConnection) throws -> Double? {
        try connection.query("""
            SELECT extract(epoch FROM min(t) - now())::float8 FROM (
                SELECT expires_at AS t FROM runs WHERE status = \(constants: [RunStatus.sending]) AND expires_at IS NOT NULL
                UNION ALL SELECT min(expires_at) FROM deliveries WHERE expires_at IS NOT NULL AND status IN (\(constants: DeliveryStatus.open))
                UNION ALL SELECT window_closes_at FROM runs WHERE status = \(constants: [RunStatus.sending]) AND window_closes_at IS NOT NULL) AS controls
            """).map { try $0.decode(Double?.self, at: 0) }.first ?? nil
    }
}

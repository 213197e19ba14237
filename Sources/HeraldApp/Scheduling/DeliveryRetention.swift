import HeraldPostgres

/// Keeps delivery detail for `days` and no longer (Migrations/0019): folds finished runs into
/// their counts, opens a new id range of `deliveries` and `delivery_failures` every few days, and
/// drops a range's partitions once every run with rows in them was folded `days` ago. A drop is
/// one statement whatever the rows, where a DELETE would write and later vacuum each of them.
struct DeliveryRetention: Sendable {
    /// The ids of one partition: far more than any stretch of days writes.
    static let span: Int64 = 1_000_000_000_000
    /// A run is folded this long after it finished: a request in flight when it ended (a
    /// cancelled run's) has been recorded by then.
    static let foldAfterMinutes = 60

    var days: Int

    /// A new range every quarter of the retention period: detail lives at most a quarter longer
    /// than promised, with about five partitions of each table at any time.
    var rotationDays: Int { max(1, days / 4) }

    struct Pass: Equatable {
        var folded = 0
        var opened: Int64?
        var dropped: [Int64] = []
    }

    /// Folds, opens and drops what is due; each step its own short transaction.
    func apply(on connection: PostgresConnection) throws -> Pass {
        var pass = Pass()
        pass.folded = try fold(on: connection)
        pass.opened = try openNextRange(on: connection)
        pass.dropped = try dropExpired(on: connection)
        // The label budget counts today only; older days are kept for a while to be looked at.
        try LabelDayStore().dropDays(olderThan: days, on: connection)
        // A device's frequency-cap count is forgotten once its last message is past every window.
        try DeviceTouchStore().dropOld(memorySeconds: try ContactPolicyStore().caps(on: connection).memorySeconds, on: connection)
        return pass
    }

    /// Folds the runs that finished long enough ago, a bounded number a pass. A run another pass
    /// is folding (a leader's, while the next leader starts) is skipped, not folded twice: the
    /// second fold's counts would be added to the first's.
    func fold(limit: Int = 1000, on connection: PostgresConnection) throws -> Int {
        try connection.transaction { connection in
            let ids = try connection.query("""
                SELECT id::text FROM runs WHERE NOT folded AND finished_at <= now() - make_interval(mins => \(Self.foldAfterMinutes)::integer)
                ORDER BY finished_at LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
                """).map { try $0.decode(String.self, at: 0) }
            if !ids.isEmpty { _ = try connection.query("SELECT herald_fold_runs(\(ids)::uuid[])") }
            return ids.count
        }
    }

    /// Opens the next range when the newest is `rotationDays` old; returns its number.
    func openNextRange(on connection: PostgresConnection) throws -> Int64? {
        let opened: Int64? = try connection.transaction { connection in
            // Creating a partition locks the table against every reader for a moment: it waits
            // for no long statement, and another scheduler's pass finds the range opened.
            _ = try connection.execute("SET LOCAL lock_timeout = '2s'")
            guard let newest = try connection.query("""
                SELECT k FROM delivery_partitions WHERE k = (SELECT max(k) FROM delivery_partitions)
                  AND opened_at <= now() - make_interval(days => \(rotationDays)::integer)
                FOR UPDATE
                """).first?.decode(Int64.self, at: 0) else { return nil }
            let next = newest + 1
            for table in ["deliveries", "delivery_failures"] {
                try connection.executeScript("""
                    CREATE TABLE \(table)_\(next) PARTITION OF \(table) FOR VALUES FROM (\(next * Self.span)) TO (\((next + 1) * Self.span))
                    """)
            }
            _ = try connection.execute("INSERT INTO delivery_partitions (k) VALUES (\(next)::bigint)")
            return next
        }
        // The ids move on to the new range once it exists for every session (after the commit).
        if let opened {
            _ = try connection.query("""
                SELECT setval('deliveries_id_seq', greatest(\(opened * Self.span)::bigint, (SELECT last_value FROM deliveries_id_seq)))
                """)
        }
        return opened
    }

    /// Drops the ranges, newest excepted, that hold no row of a run unfolded or folded less than
    /// `days` ago, and that were closed an hour ago at least (no insert still on its way to them).
    func dropExpired(on connection: PostgresConnection) throws -> [Int64] {
        let candidates = try connection.query("""
            SELECT p.k FROM delivery_partitions p
            WHERE EXISTS (SELECT 1 FROM delivery_partitions n WHERE n.k > p.k AND n.opened_at <= now() - interval '1 hour')
            ORDER BY p.k
            """).map { try $0.decode(Int64.self, at: 0) }
        var dropped: [Int64] = []
        for k in candidates {
            let done = try connection.transaction { connection -> Bool in
                _ = try connection.execute("SET LOCAL lock_timeout = '2s'")
                // The runs that keep a range: open, unfolded, or finished within the period. Each
                // is an index probe of the range's tables (by run).
                let kept = try connection.query(PostgresQuery(unsafeSQL: """
                    SELECT EXISTS (
                        SELECT 1 FROM runs r
                        WHERE (r.finished_at IS NULL OR NOT r.folded OR r.finished_at > now() - make_interval(days => $1::integer))
                          AND (EXISTS (SELECT 1 FROM deliveries_\(k) d WHERE d.run_id = r.id)
                               OR EXISTS (SELECT 1 FROM delivery_failures_\(k) f WHERE f.run_id = r.id)))
                    """, binds: [days.postgresValue])).first?.decode(Bool.self, at: 0) ?? true
                guard !kept else { return false }
                try connection.executeScript("DROP TABLE deliveries_\(k), delivery_failures_\(k)")
                _ = try connection.execute("DELETE FROM delivery_partitions WHERE k = \(k)")
                return true
            }
            if done { dropped.append(k) }
        }
        return dropped
    }
}

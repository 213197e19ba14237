import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// The marketing messages each device got lately (`device_touches`, Migrations/0031), and the
/// frequency caps' check: one statement per claimed batch, O(1) per device.
struct DeviceTouchStore: Sendable {
    /// Which of `tokens` a run may send a message of `category` now under `caps`, each counted
    /// as it is admitted. A device its run was already admitted for (a retry, a batch taken
    /// over after a crash) is admitted again without counting twice. Each device's row is held
    /// while its count is read and its message appended (an UPDATE re-reads a row another claim
    /// changed meanwhile), so two instances never both take a device's last message of a window.
    func admit(_ tokens: [String], category: String?, run runID: String, caps: FrequencyCaps,
               on connection: PostgresConnection) throws -> Set<String> {
        let own = category.flatMap { caps.categories[$0] } ?? FrequencyCaps.Limits()
        let limits = FrequencyCaps.Window.allCases.flatMap { [caps.marketing[$0], own[$0]] }.compactMap { $0 }
        // Nothing to count against: no send is remembered.
        guard !tokens.isEmpty, let smallest = limits.min(), let memory = caps.memorySeconds else { return Set(tokens) }
        // Devices messaged before: one UPDATE, the usual case once a device has a row.
        var admitted = try count(tokens, category: category, run: runID, caps: caps, own: own, smallest: smallest, memory: memory, on: connection)
        var rest = tokens.filter { !admitted.contains($0) }
        guard !rest.isEmpty else { return admitted }
        // Devices without a row yet: their first message is under every cap.
        let inserted = try connection.query("""
            WITH x AS (SELECT t, hashtextextended(t, 0) AS k FROM unnest(\(rest)::text[]) AS t ORDER BY 2),
            added AS (
                INSERT INTO device_touches (key, at, category, run)
                SELECT x.k, ARRAY[now()], ARRAY[\(category)::text], ARRAY[\(runID)::uuid] FROM x ORDER BY x.k
                ON CONFLICT (key) DO NOTHING
                RETURNING key)
            SELECT x.t FROM x JOIN added ON added.key = x.k
            """).map { try $0.decode(String.self, at: 0) }
        admitted.formUnion(inserted)
        rest = rest.filter { !admitted.contains($0) }
        guard !rest.isEmpty else { return admitted }
        // The rest have a row: another claim inserted it since (counted now, under its lock), or
        // they are at a cap, or this run was admitted for them before.
        admitted.formUnion(try count(rest, category: category, run: runID, caps: caps, own: own, smallest: smallest, memory: memory, on: connection))
        rest = rest.filter { !admitted.contains($0) }
        guard !rest.isEmpty else { return admitted }
        return admitted.union(try connection.query("""
            SELECT t FROM unnest(\(rest)::text[]) AS t JOIN device_touches d ON d.key = hashtextextended(t, 0) WHERE \(runID)::uuid = ANY(d.run)
            """).map { try $0.decode(String.self, at: 0) })
    }

    /// Appends the message to the rows of `tokens` that are under every cap and have not counted
    /// this run yet; returns those tokens. A row shorter than the smallest cap is under all of
    /// them without counting; a row whose oldest message is past every window is pruned first.
    private func count(_ tokens: [String], category: String?, run runID: String, caps: FrequencyCaps, own: FrequencyCaps.Limits,
                       smallest: Int, memory: Int, on connection: PostgresConnection) throws -> Set<String> {
        // A cap not set is no limit: the largest integer stands in for it.
        func cap(_ value: Int?) -> Int { value ?? Int(Int32.max) }
        return Set(try connection.query("""
            UPDATE device_touches AS d SET
                at = CASE WHEN d.at[1] > now() - make_interval(secs => \(memory)) THEN d.at
                          ELSE (SELECT coalesce(array_agg(k.a ORDER BY k.i), '{}') FROM unnest(d.at) WITH ORDINALITY AS k(a, i)
                                WHERE k.a > now() - make_interval(secs => \(memory))) END || now(),
                category = CASE WHEN d.at[1] > now() - make_interval(secs => \(memory)) THEN d.category
                                ELSE (SELECT coalesce(array_agg(k.c ORDER BY k.i), '{}') FROM unnest(d.at, d.category) WITH ORDINALITY AS k(a, c, i)
                                      WHERE k.a > now() - make_interval(secs => \(memory))) END || \(category)::text,
                run = CASE WHEN d.at[1] > now() - make_interval(secs => \(memory)) THEN d.run
                           ELSE (SELECT coalesce(array_agg(k.r ORDER BY k.i), '{}') FROM unnest(d.at, d.run) WITH ORDINALITY AS k(a, r, i)
                                 WHERE k.a > now() - make_interval(secs => \(memory))) END || \(runID)::uuid
            -- In key order: every claimer locks a batch's rows in the same order, so two batches
            -- holding the same devices never deadlock.
            FROM (SELECT t, hashtextextended(t, 0) AS k FROM unnest(\(tokens)::text[]) AS t ORDER BY 2) AS x
            WHERE d.key = x.k AND NOT (\(runID)::uuid = ANY(d.run))
              AND (cardinality(d.at) < \(smallest) OR (
                  SELECT count(*) FILTER (WHERE k.a > now() - interval '1 hour') < \(cap(caps.marketing.hour))
                     AND count(*) FILTER (WHERE k.a > now() - interval '1 day') < \(cap(caps.marketing.day))
                     AND count(*) FILTER (WHERE k.a > now() - interval '7 days') < \(cap(caps.marketing.week))
                     AND count(*) FILTER (WHERE k.c = \(category)::text AND k.a > now() - interval '1 hour') < \(cap(own.hour))
                     AND count(*) FILTER (WHERE k.c = \(category)::text AND k.a > now() - interval '1 day') < \(cap(own.day))
                     AND count(*) FILTER (WHERE k.c = \(category)::text AND k.a > now() - interval '7 days') < \(cap(own.week))
                  FROM unnest(d.at, d.category) AS k(a, c)))
            RETURNING x.t
            """).map { try $0.decode(String.self, at: 0) })
    }

    /// `claimed`, the requests of one run to devices, with those `caps` stop marked `capped`
    /// (recorded so, never sent). A transactional campaign's are never capped nor counted.
    func applyCaps(_ caps: FrequencyCaps, to claimed: [DeliveryStore.Claimed], tokens: [String], spec: CampaignSpec, runID: String,
                   on connection: PostgresConnection) throws -> [DeliveryStore.Claimed] {
        guard !spec.delivery.transactional, !claimed.isEmpty, !caps.isEmpty else { return claimed }
        let sendable = zip(claimed, tokens).filter { $0.0.failure == nil }.map(\.1)
        let admitted = try admit(sendable, category: spec.delivery.category, run: runID, caps: caps, on: connection)
        return zip(claimed, tokens).map { request, token in
            var request = request
            if request.failure == nil, !admitted.contains(token) { request.capped = true }
            return request
        }
    }

    /// Up to about `limit` devices' recent messages, drawn at random pages of the table, and how
    /// many devices have a row: what the reach forecast reads, in milliseconds at any size.
    func sample(limit: Int, on connection: PostgresConnection) throws -> (histories: [[(at: Date, category: String?)]], devices: Int) {
        let estimated = try connection.query("SELECT reltuples::float8 FROM pg_class WHERE oid = 'device_touches'::regclass")
            .first?.decode(Double.self, at: 0) ?? -1
        // Never analysed (reltuples -1) or small: read it all, up to the limit.
        let percent = estimated > Double(limit) ? max(0.01, min(100, Double(limit) / estimated * 100)) : 100
        let rows = try connection.query("""
            SELECT array_to_json(at)::text, array_to_json(category)::text
            FROM device_touches TABLESAMPLE SYSTEM (\(percent)::float8) LIMIT \(limit)
            """).map { try $0.decode((String, String).self) }
        let histories: [[(at: Date, category: String?)]] = rows.map { times, categories in
            let at = ((try? JSON.parse(times))?.arrayValue ?? []).map { Date(timeIntervalSince1970: RFC3339.secondsSince1970($0.stringValue ?? "") ?? 0) }
            let category = ((try? JSON.parse(categories))?.arrayValue ?? []).map(\.stringValue)
            return zip(at, category).map { ($0, $1) }
        }
        let devices = percent >= 100 ? rows.count : max(rows.count, Int(estimated))
        return (histories, devices)
    }

    /// Forgets the touches older than every window (`memorySeconds`), and all of them without caps.
    func dropOld(memorySeconds: Int?, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            DELETE FROM device_touches
            WHERE \(memorySeconds)::integer IS NULL OR at[array_upper(at, 1)] < now() - make_interval(secs => \(memorySeconds)::integer)
            """)
    }
}

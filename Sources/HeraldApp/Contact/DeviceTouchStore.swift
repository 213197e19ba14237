import HeraldCore
import HeraldPostgres

/// The marketing messages each device got lately (`device_touches`, Migrations/0031), and the
/// frequency caps' check: one statement per claimed batch, O(1) per device.
struct DeviceTouchStore: Sendable {
    /// Which of `tokens` a run may send a message of `category` now under `caps`, each counted
    /// as it is admitted. A device its run was already admitted for (a retry, a batch taken
    /// over after a crash) is admitted again without counting twice. In the claim's transaction,
    /// which holds each device's row until it commits: two instances never both take a device's
    /// last message of a window.
    func admit(_ tokens: [String], category: String?, run runID: String, caps: FrequencyCaps,
               on connection: PostgresConnection) throws -> Set<String> {
        let own = category.flatMap { caps.categories[$0] } ?? FrequencyCaps.Limits()
        // Nothing to count against: no send is remembered.
        guard !tokens.isEmpty, !(caps.marketing.isEmpty && own.isEmpty), let memory = caps.memorySeconds else { return Set(tokens) }
        // A cap not set is no limit: the largest integer stands in for it.
        func cap(_ value: Int?) -> Int { value ?? Int(Int32.max) }
        let admitted = Set(try connection.query("""
            INSERT INTO device_touches AS t (token, at, category, run)
            SELECT x.t, ARRAY[now()], ARRAY[\(category)::text], ARRAY[\(runID)::uuid] FROM unnest(\(tokens)::text[]) AS x(t)
            -- One order for every claimer: two batches locking the same devices never deadlock.
            ORDER BY x.t
            ON CONFLICT (token) DO UPDATE SET (at, category, run) = (
                SELECT coalesce(array_agg(k.a ORDER BY k.i), '{}') || now(), coalesce(array_agg(k.c ORDER BY k.i), '{}') || \(category)::text,
                       coalesce(array_agg(k.r ORDER BY k.i), '{}') || \(runID)::uuid
                FROM unnest(t.at, t.category, t.run) WITH ORDINALITY AS k(a, c, r, i)
                WHERE k.a > now() - make_interval(secs => \(memory)))
            WHERE NOT (\(runID)::uuid = ANY(t.run)) AND (
                SELECT count(*) FILTER (WHERE k.a > now() - interval '1 hour') < \(cap(caps.marketing.hour))
                   AND count(*) FILTER (WHERE k.a > now() - interval '1 day') < \(cap(caps.marketing.day))
                   AND count(*) FILTER (WHERE k.a > now() - interval '7 days') < \(cap(caps.marketing.week))
                   AND count(*) FILTER (WHERE k.c = \(category)::text AND k.a > now() - interval '1 hour') < \(cap(own.hour))
                   AND count(*) FILTER (WHERE k.c = \(category)::text AND k.a > now() - interval '1 day') < \(cap(own.day))
                   AND count(*) FILTER (WHERE k.c = \(category)::text AND k.a > now() - interval '7 days') < \(cap(own.week))
                FROM unnest(t.at, t.category) AS k(a, c))
            RETURNING token
            """).map { try $0.decode(String.self, at: 0) })
        guard admitted.count < tokens.count else { return admitted }
        // The rest: capped, or admitted for this run before (their rows are held now either way).
        let rest = tokens.filter { !admitted.contains($0) }
        let again = try connection.query("""
            SELECT token FROM device_touches WHERE token = ANY(\(rest)) AND \(runID)::uuid = ANY(run)
            """).map { try $0.decode(String.self, at: 0) }
        return admitted.union(again)
    }

    /// `claimed`, the requests of one run to devices, with those a cap stops marked `capped`
    /// (recorded so, never sent). A transactional campaign's are never capped nor counted.
    func applyCaps(to claimed: [DeliveryStore.Claimed], tokens: [String], spec: CampaignSpec, runID: String,
                   on connection: PostgresConnection) throws -> [DeliveryStore.Claimed] {
        guard !spec.delivery.transactional, !claimed.isEmpty else { return claimed }
        let caps = try ContactPolicyStore().caps(on: connection)
        guard !caps.isEmpty else { return claimed }
        let sendable = zip(claimed, tokens).filter { $0.0.failure == nil }.map(\.1)
        let admitted = try admit(sendable, category: spec.delivery.category, run: runID, caps: caps, on: connection)
        return zip(claimed, tokens).map { request, token in
            var request = request
            if request.failure == nil, !admitted.contains(token) { request.capped = true }
            return request
        }
    }

    /// Forgets the touches older than every window (`memorySeconds`), and all of them without caps.
    func dropOld(memorySeconds: Int?, on connection: PostgresConnection) throws {
        _ = try connection.execute("""
            DELETE FROM device_touches
            WHERE \(memorySeconds)::integer IS NULL OR at[array_upper(at, 1)] < now() - make_interval(secs => \(memorySeconds)::integer)
            """)
    }
}

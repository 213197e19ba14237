import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// A segment's subscription to a topic (or unsubscription), or the assignment of every device's
/// time-zone topic, run in the background.
public struct TopicJob: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable { case queued, running, done, failed }
    /// What it changes.
    public enum Kind: String, Sendable, CaseIterable {
        /// A segment's devices, to or from `topic`.
        case segment
        /// Every active device whose zone changed, out of its old zone's topic and into its new one's.
        case timeZones = "time_zones"
    }

    public var id: TopicJobID
    public var kind: Kind
    /// The topic and the segment of a segment's job (nil for a time-zone job).
    public var topic: String?
    public var unsubscribe: Bool
    public var segmentID: SegmentID?
    public var status: Status
    /// The devices it had to do when it was made (the segment's, or those whose zone had changed).
    public var reach: Int
    /// The last device done, in token order (nil before the first batch).
    public var afterToken: String?
    /// What the batches done so far did.
    public var change: DeviceService.TopicChange
    public var error: String?
    public var createdBy: String
    public var createdAt: Date
    public var startedAt: Date?
    public var finishedAt: Date?
}

/// `topic_subscription_jobs`: made by a request, claimed with a lease by any instance's
/// "topic-subscriptions" service, and moved on a batch at a time, the position and the counts in
/// one statement that holds only while the lease is the writer's.
struct TopicJobStore: Sendable {
    static let channel = "herald_topic_jobs"
    static let columns = """
        id, kind, topic, unsubscribe, segment_id, status, reach, after_token, devices, changed, unsubscribed, zones, failed, throttled,
        skipped_fids, calls, failures::text, error, created_by, created_at, started_at, finished_at
        """

    func insert(topic: String, unsubscribe: Bool, segment: SegmentID, reach: Int, by actor: Actor, on connection: PostgresConnection) throws -> TopicJob {
        let job = try connection.query(PostgresQuery(unsafeSQL: """
            INSERT INTO topic_subscription_jobs (topic, unsubscribe, segment_id, reach, created_by) VALUES ($1, $2, $3, $4, $5)
            RETURNING \(Self.columns)
            """, binds: [topic.postgresValue, unsubscribe.postgresValue, segment.postgresValue, reach.postgresValue, actor.name.postgresValue]))
            .map(Self.decode).first
        // Every instance's service wakes for it at once (polling is the fallback).
        _ = try connection.query("SELECT pg_notify(\(Self.channel), '')")
        guard let job else { throw AppError.unavailable("the job was not stored") }
        return job
    }

    /// Queues the time-zone job, or returns the one already queued or running (there is one at most).
    func insertTimeZones(reach: Int, by actor: Actor, on connection: PostgresConnection) throws -> (job: TopicJob, queued: Bool) {
        // The open job may end between the insert that met it and the read of it (a registry with
        // nothing to move is done in milliseconds): then a new one is queued after all.
        for _ in 0..<5 {
            let inserted = try connection.query(PostgresQuery(unsafeSQL: """
                INSERT INTO topic_subscription_jobs (kind, unsubscribe, reach, created_by) VALUES ('time_zones', false, $1, $2)
                ON CONFLICT DO NOTHING RETURNING \(Self.columns)
                """, binds: [reach.postgresValue, actor.name.postgresValue])).map(Self.decode).first
            if let inserted {
                _ = try connection.query("SELECT pg_notify(\(Self.channel), '')")
                return (inserted, true)
            }
            if let open = try connection.query(PostgresQuery(unsafeSQL: """
                SELECT \(Self.columns) FROM topic_subscription_jobs WHERE kind = 'time_zones' AND status IN ('queued', 'running')
                """)).map(Self.decode).first {
                return (open, false)
            }
        }
        throw AppError.unavailable("the time-zone job was not stored; try again")
    }

    func get(_ id: TopicJobID, on connection: PostgresConnection) throws -> TopicJob? {
        try connection.query(PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM topic_subscription_jobs WHERE id = $1",
                                           binds: [id.postgresValue])).map(Self.decode).first
    }

    /// The oldest job that is queued, or running under a lease that has run out (its instance
    /// died or stopped), now `owner`'s for `leaseSeconds`.
    func claim(owner: String, leaseSeconds: Int, on connection: PostgresConnection) throws -> TopicJob? {
        try connection.query(PostgresQuery(unsafeSQL: """
            UPDATE topic_subscription_jobs SET status = 'running', lease_owner = $1, lease_until = now() + make_interval(secs => $2),
                started_at = coalesce(started_at, now())
            WHERE id = (SELECT id FROM topic_subscription_jobs
                        WHERE status IN ('queued', 'running') AND (lease_until IS NULL OR lease_until < now())
                        ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING \(Self.columns)
            """, binds: [owner.postgresValue, leaseSeconds.postgresValue])).map(Self.decode).first
    }

    /// Adds one batch (`delta`) and moves the position past it, renewing the lease; false when
    /// the lease is no longer `owner`'s (another instance took the job over: this batch is its
    /// to do again, which subscribing twice makes harmless).
    func progress(_ id: TopicJobID, owner: String, after token: String, delta: DeviceService.TopicChange, leaseSeconds: Int,
                  on connection: PostgresConnection) throws -> Bool {
        let failures = JSON.array(delta.failures.map { ["token": .string($0.token), "reason": .string($0.reason)] }).serializedString()
        return try connection.execute(PostgresQuery(unsafeSQL: """
            UPDATE topic_subscription_jobs SET after_token = $3, devices = devices + $4, changed = changed + $5, failed = failed + $6,
                throttled = throttled + $7, skipped_fids = skipped_fids + $8, calls = calls + $9,
                failures = jsonb_path_query_array(failures || $10::jsonb, '$[0 to \(DeviceService.TopicChange.maximumFailures - 1)]'),
                lease_until = now() + make_interval(secs => $11), unsubscribed = unsubscribed + $12,
                zones = ARRAY(SELECT DISTINCT z FROM unnest(zones || $13::text[]) AS z ORDER BY z)
            WHERE id = $1 AND lease_owner = $2 AND status = 'running'
            """, binds: [id.postgresValue, owner.postgresValue, token.postgresValue, delta.devices.postgresValue, delta.changed.postgresValue,
                         delta.failed.postgresValue, delta.throttled.postgresValue, delta.skippedFIDs.postgresValue, delta.calls.postgresValue,
                         failures.postgresValue, leaseSeconds.postgresValue, delta.unsubscribed.postgresValue,
                         String.postgresValue(ofArray: delta.zones.sorted())])) == 1
    }

    /// Ends the job `done` or `failed` (with why), while the lease is `owner`'s.
    func finish(_ id: TopicJobID, owner: String, failure: String?, on connection: PostgresConnection) throws -> Bool {
        let status: TopicJob.Status = failure == nil ? .done : .failed
        return try connection.execute(PostgresQuery(unsafeSQL: """
            UPDATE topic_subscription_jobs SET status = $3, error = $4, finished_at = now(), lease_owner = NULL, lease_until = NULL
            WHERE id = $1 AND lease_owner = $2 AND status = 'running'
            """, binds: [id.postgresValue, owner.postgresValue, status.postgresValue, failure.postgresValue])) == 1
    }

    /// Lets another instance take the job at once (this one is stopping).
    func release(_ id: TopicJobID, owner: String, on connection: PostgresConnection) throws {
        _ = try connection.execute(PostgresQuery(unsafeSQL: """
            UPDATE topic_subscription_jobs SET lease_until = now() WHERE id = $1 AND lease_owner = $2 AND status = 'running'
            """, binds: [id.postgresValue, owner.postgresValue]))
    }

    static func decode(_ row: PostgresRow) throws -> TopicJob {
        var change = DeviceService.TopicChange()
        change.devices = try row.decode(Int.self, column: "devices")
        change.changed = try row.decode(Int.self, column: "changed")
        change.unsubscribed = try row.decode(Int.self, column: "unsubscribed")
        change.zones = Set(try row.decode([String].self, column: "zones"))
        change.failed = try row.decode(Int.self, column: "failed")
        change.throttled = try row.decode(Int.self, column: "throttled")
        change.skippedFIDs = try row.decode(Int.self, column: "skipped_fids")
        change.calls = try row.decode(Int.self, column: "calls")
        change.failures = (try JSON.parse(try row.decode(String.self, column: "failures"))).arrayValue?.compactMap { failure in
            guard let token = failure["token"]?.stringValue, let reason = failure["reason"]?.stringValue else { return nil }
            return (token, reason)
        } ?? []
        return TopicJob(id: try row.decode(TopicJobID.self, column: "id"), kind: try row.decode(TopicJob.Kind.self, column: "kind"),
                        topic: try row.decode(String?.self, column: "topic"), unsubscribe: try row.decode(Bool.self, column: "unsubscribe"),
                        segmentID: try row.decode(SegmentID?.self, column: "segment_id"),
                        status: try row.decode(TopicJob.Status.self, column: "status"), reach: try row.decode(Int.self, column: "reach"),
                        afterToken: try row.decode(String?.self, column: "after_token"), change: change,
                        error: try row.decode(String?.self, column: "error"), createdBy: try row.decode(String.self, column: "created_by"),
                        createdAt: try row.decode(Date.self, column: "created_at"), startedAt: try row.decode(Date?.self, column: "started_at"),
                        finishedAt: try row.decode(Date?.self, column: "finished_at"))
    }
}

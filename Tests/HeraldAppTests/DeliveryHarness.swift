import FCMEmulator
import Foundation
import HeraldCore
import HeraldFCM
import HeraldHTTP
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
@testable import HeraldApp

#if canImport(Glibc)
import Glibc
#endif

/// Reads and arranges the outbox of a test database directly.
struct OutboxProbe {
    let connection: PostgresConnection

    init(url: String) throws { connection = try PostgresConnection(url: url) }

    func close() { connection.close() }

    /// Every planned request body (serialized the way the emulator's messages are) with its status.
    func deliveries() throws -> [(body: String, status: String, attempts: Int, sentBy: String?)] {
        try connection.query("SELECT body, status, attempts, sent_by FROM deliveries ORDER BY id").map { row in
            let body = try JSON.parse(try row.decode(String.self, at: 0)).serializedString()
            return (body, try row.decode(String.self, at: 1), try row.decode(Int.self, at: 2), try row.decode(String?.self, at: 3))
        }
    }

    func count(_ sql: StaticString) throws -> Int {
        try connection.query("\(literal: sql)").first.map { try $0.decode(Int.self, at: 0) } ?? 0
    }

    /// Devices streamed runs recorded with `outcome` ("sent", "failed", "planned"…), from their counts.
    func streamed(_ outcome: String) throws -> Int {
        try connection.query("SELECT coalesce(sum(n), 0)::bigint FROM run_counts WHERE outcome = \(outcome)").first?.decode(Int.self, at: 0) ?? 0
    }

    /// Devices of the streamed batches the process `pid` holds: at most what it had in flight.
    func streamedInFlight(pid: Int32) throws -> Int {
        try connection.query("""
            SELECT coalesce(sum(devices), 0)::bigint FROM device_batches WHERE status = 'pending' AND lease_owner LIKE \("%:\(pid):%")
            """).first?.decode(Int.self, at: 0) ?? 0
    }

    /// Registers `tokens` as Android devices (in bulk) and saves a segment of them all; returns its id.
    func insertAndroidDevicesAndTheirSegment(_ tokens: [String]) throws -> String {
        for start in stride(from: 0, to: tokens.count, by: 5000) {
            try DeviceStore().upsert(tokens[start..<min(start + 5000, tokens.count)].map { Device(token: $0, platform: .android) }, on: connection)
        }
        return try connection.query("""
            INSERT INTO segments (name, rule) VALUES ('Everyone', '{"all": [{"field": "platform", "equals": "android"}]}') RETURNING id::text
            """).first!.decode(String.self, at: 0)
    }

    /// Logs every change of the shared bucket's tokens taken (a grant, or tokens given back) at the
    /// bucket's own time (its last refill): what the quota promises is measured where it decides.
    func logBucketGrants() throws {
        try connection.executeScript("""
            CREATE TABLE bucket_grants (at float8 NOT NULL, tokens bigint NOT NULL);
            CREATE FUNCTION log_bucket_grant() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.taken <> OLD.taken THEN
                    INSERT INTO bucket_grants VALUES (extract(epoch FROM NEW.refilled_at), NEW.taken - OLD.taken);
                END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER log_bucket_grant AFTER UPDATE ON send_buckets FOR EACH ROW EXECUTE FUNCTION log_bucket_grant();
            """)
    }

    /// The most tokens (net of those given back) the bucket handed out in any window of `seconds`
    /// starting at a grant, from the log `logBucketGrants` keeps.
    func busiestGrantWindow(seconds: Double) throws -> Int {
        let grants = try connection.query("SELECT at, tokens FROM bucket_grants ORDER BY at").map {
            (try $0.decode(Double.self, at: 0), try $0.decode(Int.self, at: 1))
        }
        var most = 0
        for (start, grant) in grants.enumerated() where grant.1 > 0 {
            most = max(most, grants[start...].prefix { $0.0 < grant.0 + seconds }.reduce(0) { $0 + $1.1 })
        }
        return most
    }

    /// Inserts `count` campaigns, each to `topics` topics (one request per 5), due at `dueAt`,
    /// straight into the table as the schedule API would leave them.
    func insertScheduledCampaigns(_ count: Int, topics: Int, dueAt: Date, label: String) throws {
        let contents = (0..<count).map { index -> String in
            let names = (0..<topics).map { JSON.string("t\(index)-\($0)") }
            let campaign: JSON = ["name": .string("\(label) \(index)"),
                                  "notification": ["title": .string("\(label) \(index)"), "body": "Hello"],
                                  "topics": .array(names)]
            return campaign.serializedString()
        }
        _ = try connection.execute("""
            INSERT INTO campaigns (name, status, content, next_run_at)
            SELECT content::jsonb ->> 'name', 'scheduled', content::jsonb, \(dueAt) FROM unnest(\(contents)) AS c(content)
            """)
    }
}

import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import Testing
@testable import HeraldApp

/// The campaign use cases against PostgreSQL, without sockets.
@Suite(.serialized) final class CampaignServiceTests {
    let harness: TestApplication
    var campaigns: CampaignService { harness.app.campaigns }
    let actor = Actor(name: "tests@example.com", address: "127.0.0.1")

    init() throws {
        harness = try TestApplication()
    }

    static func spec(_ name: String = "Service test") throws -> CampaignSpec {
        try CampaignService.validated(["name": .string(name), "notification": ["title": "Hello", "body": "World"], "topics": ["news"]])
    }

    /// Everything a campaign write touches, as text, to compare before and after.
    func snapshot() throws -> String {
        try harness.pool.withConnection { connection in
            try ["campaigns", "audit_log", "runs", "deliveries"].map { table in
                try connection.query(PostgresQuery(unsafeSQL: "SELECT coalesce(string_agg(t::text, '|' ORDER BY t::text), '') FROM \(table) t"))
                    .map { try $0.decode(String.self, at: 0) }[0]
            }.joined(separator: "\n")
        }
    }

    /// Every campaign write, given a fresh draft to act on.
    func writes() -> [(name: String, run: (CampaignRecord) throws -> Void)] {
        let now = Date()
        return [
            ("create", { _ in _ = try self.campaigns.create(try Self.spec("Another"), by: self.actor, now: Date()) }),
            ("update", { _ = try self.campaigns.update($0.id, expectedVersion: $0.version, spec: try Self.spec("Renamed"), by: self.actor, now: now) }),
            ("patch", { _ = try self.campaigns.patch($0.id, expectedVersion: $0.version, patch: ["name": "Patched"], by: self.actor, now: now) }),
            ("delete", { try self.campaigns.delete($0.id, expectedVersion: $0.version, by: self.actor) }),
            ("schedule", { _ = try self.campaigns.schedule($0.id, expectedVersion: $0.version, by: self.actor, now: now) }),
            ("publish", { _ = try self.campaigns.publishNow($0.id, expectedVersion: $0.version, by: self.actor, now: now) }),
            ("cancel", { _ = try self.campaigns.cancel($0.id, expectedVersion: $0.version, by: self.actor) }),
            ("duplicate", { _ = try self.campaigns.duplicate($0.id, by: self.actor) }),
        ]
    }

    @Test func everyWriteRecordsExactlyOneAuditEntry() throws {
        for write in writes() {
            let draft = try campaigns.create(try Self.spec(), by: actor, now: Date())
            let before = try harness.count("SELECT count(*)::int8 FROM audit_log")
            try write.run(draft)
            #expect(try harness.count("SELECT count(*)::int8 FROM audit_log") == before + 1, "\(write.name)")
        }
    }

    /// A failure injected after the write (the audit insert refuses) leaves neither the write nor
    /// its audit entry: each use case is one transaction.
    @Test func aFailureAfterTheWriteLeavesNeitherTheWriteNorItsAuditEntry() throws {
        try harness.execute("""
            CREATE TABLE audit_failure (on_ boolean NOT NULL);
            INSERT INTO audit_failure VALUES (false);
            CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF (SELECT on_ FROM audit_failure) THEN RAISE EXCEPTION 'injected: the audit log refuses'; END IF;
              RETURN NEW;
            END $$;
            CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_audit();
            """)
        for write in writes() {
            try harness.execute("UPDATE audit_failure SET on_ = false")
            let draft = try campaigns.create(try Self.spec(), by: actor, now: Date())
            try harness.execute("UPDATE audit_failure SET on_ = true")
            let before = try snapshot()
            #expect(throws: PostgresError.self, "\(write.name) must fail when its audit entry cannot be written") { try write.run(draft) }
            #expect(try snapshot() == before, "\(write.name) left a change behind without its audit entry")
        }
    }

    /// A row that today's rules refuse (edited by hand, or written under older rules) still lists
    /// and reads; planning it says it cannot be planned instead of failing every list.
    @Test func aStoredCampaignThatNoLongerValidatesListsAndReadsButDoesNotPlan() throws {
        let record = try campaigns.create(try Self.spec("Broken by hand"), by: actor, now: Date())
        let long = String(repeating: "x", count: 2000)
        try harness.execute("UPDATE campaigns SET content = jsonb_set(content, '{notification,title}', '\"\(long)\"') WHERE id = '\(record.id)'")
        let listed = try campaigns.list(CampaignFilter(), after: nil)
        #expect(listed.campaigns.contains { $0.id == record.id })
        let read = try campaigns.get(record.id)
        #expect(read.content["notification"]?["title"]?.stringValue == long)
        #expect(throws: AppError.self) { try self.campaigns.preview(record.id, now: Date()) }
        do {
            _ = try campaigns.preview(record.id, now: Date())
        } catch AppError.conflict(let code, _, let detail, _) {
            #expect(code == "stored_content_invalid")
            #expect(detail.contains(record.id.description))
        }
    }

    @Test func aVersionMismatchNamesTheCurrentVersion() throws {
        let record = try campaigns.create(try Self.spec(), by: actor, now: Date())
        _ = try campaigns.update(record.id, expectedVersion: 1, spec: try Self.spec("One"), by: actor, now: Date())
        #expect(throws: AppError.versionMismatch(currentVersion: 2, expectedVersion: 1)) {
            try self.campaigns.update(record.id, expectedVersion: 1, spec: try Self.spec("Two"), by: self.actor, now: Date())
        }
        // A version that never was is not "someone saved since you read it".
        let ahead = AppError.versionMismatch(currentVersion: 2, expectedVersion: 7)
        #expect(throws: ahead) {
            try self.campaigns.update(record.id, expectedVersion: 7, spec: try Self.spec("Two"), by: self.actor, now: Date())
        }
        #expect(ahead.message == "Version 7 does not exist: the campaign is at version 2; read it again and retry with its ETag.")
    }

    @Test func theDatabaseGoneIsUnavailableNotAnInternalError() throws {
        let unreachable = try HeraldApplication(configuration: try HeraldConfiguration(environment: [
            "DATABASE_URL": "postgresql://herald@127.0.0.1:1/herald?connect_timeout=1"]), log: Log(minimum: .error))
        #expect(throws: AppError.self) { try unreachable.campaigns.list(CampaignFilter(), after: nil) }
    }
}

/// Event times are checked as PostgreSQL will read them, so a time it refuses is a field error,
/// not a 500.
@Suite struct EventTimeTests {
    @Test(arguments: ["2026-01-01T00:00:00Z", "2026-02-28T23:59:60.5+15:59", "2024-02-29T09:30:00-05:00", "2026-11-22t09:30:00z"])
    func accepted(_ text: String) { #expect(EventService.isTimestamp(text)) }

    @Test(arguments: ["2026-01-01T00:00:00-19:16", "2026-01-01T00:00:00+16:00", "2026-01-01T00:00:00+05:60", "2026-02-30T00:00:00Z",
                      "2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-01-01T24:00:00Z", "0000-01-01T00:00:00Z", "2026-01-01 00:00:00Z"])
    func refused(_ text: String) { #expect(!EventService.isTimestamp(text)) }
}

/// Paging the campaign list: every campaign once, whatever microsecond it was created at and
/// whatever is created meanwhile.
@Suite(.serialized) final class CampaignPagingTests {
    let harness: TestApplication

    init() throws {
        harness = try TestApplication()
    }

    /// 10,002 campaigns, a few created in the same microsecond and the rest at microseconds a
    /// `Double` of seconds cannot hold exactly (the cursor once came back a microsecond later and
    /// its page began with the campaign that ended the one before), walked 100 a page while new
    /// campaigns arrive: each once, newest first, none of the new ones.
    @Test(.timeLimit(.minutes(3)))
    func walkingTenThousandCampaignsAPageAtATimeListsEachOnceWhileNewOnesArrive() throws {
        let count = 10_002
        try harness.pool.withConnection { connection in
            _ = try connection.execute("""
                INSERT INTO campaigns (name, status, content, created_at)
                SELECT 'Paged ' || g, 'draft', jsonb_build_object('name', 'Paged ' || g, 'notification', jsonb_build_object('title', 'Hi'), 'topics', jsonb_build_array('news')),
                       timestamptz '2026-11-27 12:00:00.000001+00' + (g / 3) * interval '1 second' + (g * 7919 % 1000000) * interval '1 microsecond'
                FROM generate_series(1, \(count)) AS g
                """)
        }
        var seen: [CampaignID] = [], cursor: CampaignCursor?, pages = 0
        repeat {
            let page = try harness.app.campaigns.list(CampaignFilter(), limit: 100, after: cursor)
            seen += page.campaigns.map(\.id)
            cursor = page.nextCursor.flatMap { CampaignCursor(token: $0.token) }
            pages += 1
            // Someone creates a campaign while the list is read: it is newer than every page to come.
            _ = try harness.app.campaigns.create(try CampaignServiceTests.spec("New \(pages)"), by: Actor(name: "tests@example.com"), now: Date())
        } while cursor != nil && pages < 200
        #expect(seen.count == count, "\(seen.count) listed of \(count)")
        #expect(Set(seen).count == seen.count, "\(seen.count - Set(seen).count) listed twice")
        #expect(pages == 101)
    }
}

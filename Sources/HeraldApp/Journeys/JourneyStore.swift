import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// A journey as stored: its draft (the definition being edited) and where it stands.
public struct JourneyRecord: Sendable, Equatable {
    public var id: JourneyID
    public var name: String
    public var status: JourneyStatus
    /// The draft, as the editor last saved it.
    public var draft: JourneyDefinition
    /// The draft's edit count (the ETag; `If-Match` names it).
    public var version: Int
    /// The version new entrants take; nil before the first publish.
    public var publishedVersion: Int?
    public var createdBy: String?
    public var updatedBy: String?
    public var createdAt: Date
    public var updatedAt: Date
}

/// The SQL of journeys, their versions and their send steps' campaigns.
struct JourneyStore: Sendable {
    static let columns: PostgresQuery = """
        id, name, status, draft::text AS draft, version, published_version, created_by, updated_by, created_at, updated_at
        """

    func insert(_ definition: JourneyDefinition, by actor: String, on connection: PostgresConnection) throws -> JourneyRecord {
        try Self.records(try connection.query("""
            INSERT INTO journeys (name, draft, created_by, updated_by) VALUES (\(definition.name), \(definition.toJSON().serializedString())::jsonb, \(actor), \(actor))
            RETURNING \(fragment: Self.columns)
            """))[0]
    }

    func find(_ id: JourneyID, forUpdate: Bool = false, on connection: PostgresConnection) throws -> JourneyRecord? {
        let lock: PostgresQuery = forUpdate ? "FOR UPDATE" : ""
        return try Self.records(try connection.query("SELECT \(fragment: Self.columns) FROM journeys WHERE id = \(id)::uuid \(fragment: lock)")).first
    }

    /// Saves the draft when `expectedVersion` is the current one; nil when it is not (or the journey is gone).
    func update(_ id: JourneyID, expectedVersion: Int, draft: JourneyDefinition, by actor: String, on connection: PostgresConnection) throws -> JourneyRecord? {
        try Self.records(try connection.query("""
            UPDATE journeys SET name = \(draft.name), draft = \(draft.toJSON().serializedString())::jsonb, version = version + 1,
                updated_by = \(actor), updated_at = now()
            WHERE id = \(id)::uuid AND version = \(expectedVersion)
            RETURNING \(fragment: Self.columns)
            """)).first
    }

    /// Newest first, `limit` after the journey `after` (its id), and whether more follow.
    func list(limit: Int, after: JourneyID?, on connection: PostgresConnection) throws -> [JourneyRecord] {
        try Self.records(try connection.query("""
            SELECT \(fragment: Self.columns) FROM journeys
            WHERE \(after)::uuid IS NULL OR (created_at, id) < (SELECT created_at, id FROM journeys WHERE id = \(after)::uuid)
            ORDER BY created_at DESC, id DESC LIMIT \(limit)
            """))
    }

    func delete(_ id: JourneyID, on connection: PostgresConnection) throws {
        // Its send steps' campaigns first (their runs and requests go with them), then the journey.
        _ = try connection.execute("DELETE FROM campaigns WHERE journey_id = \(id)::uuid")
        _ = try connection.execute("DELETE FROM journeys WHERE id = \(id)::uuid")
    }

    func setStatus(_ id: JourneyID, _ status: JourneyStatus, on connection: PostgresConnection) throws {
        _ = try connection.execute("UPDATE journeys SET status = \(status), updated_at = now() WHERE id = \(id)::uuid")
    }

    /// Publishes `definition` as the journey's next version: the version row, a campaign per send
    /// step (hidden from the campaign list, sending while the journey lives), and the journey's
    /// entry and goal for the event path. Answers the version.
    func publish(_ record: JourneyRecord, _ definition: JourneyDefinition, by actor: Actor, on connection: PostgresConnection) throws -> Int {
        let version = (record.publishedVersion ?? 0) + 1
        _ = try connection.execute("""
            INSERT INTO journey_versions (journey_id, version, definition, published_by)
            VALUES (\(record.id)::uuid, \(version), \(definition.toJSON().serializedString())::jsonb, \(actor.name))
            """)
        for (index, step) in definition.steps.enumerated() {
            guard case .send(var spec, _) = step.kind else { continue }
            spec.name = String("\(definition.name) · v\(version) · \(step.name)".prefix(CampaignLimits.nameCharacters))
            // The step's winner rule stays in the journey's version (`JourneyWinners` reads it there):
            // the campaign holds the message, which a campaign's automatic winner would need a holdout for.
            spec.autoWinner = nil
            let campaign = try CampaignStore().insert(spec, author: actor.name, by: actor.attribution, on: connection)
            _ = try connection.execute("""
                UPDATE campaigns SET journey_id = \(record.id)::uuid, status = \(constants: [CampaignStatus.sending]) WHERE id = \(campaign.id)::uuid
                """)
            _ = try connection.execute("""
                INSERT INTO journey_sends (journey_id, version, step, campaign_id) VALUES (\(record.id)::uuid, \(version), \(index), \(campaign.id)::uuid)
                """)
        }
        // A paused journey stays paused; a draft or a stopped one goes live.
        _ = try connection.execute("""
            UPDATE journeys SET published_version = \(version), entry_event = \(definition.entry.event),
                entry_joins = \(definition.entry.isJoining), entry_date = \(definition.entry.date?.property), goal_event = \(definition.goalEvent),
                status = CASE WHEN status = \(constants: [JourneyStatus.paused]) THEN status ELSE \(JourneyStatus.live) END, updated_at = now()
            WHERE id = \(record.id)::uuid
            """)
        // A journey entered on a date: every device's next moment, as this version reads the date.
        try JourneyDates().schedule(record.id, definition.entry.date, on: connection)
        return version
    }

    /// Moves the devices waiting on older versions to `to`'s namesake steps (`moves`, by version);
    /// each is due at once, so that its wait is measured again on the new step. Answers the
    /// counters of the move (left the old step, reached the new) and how many moved.
    func move(_ id: JourneyID, to version: Int, moves: [Int: [Int: Int]], on connection: PostgresConnection) throws -> (counts: JourneyCounts, moved: Int) {
        var counts = JourneyCounts(), moved = 0
        for (from, map) in moves.sorted(by: { $0.key < $1.key }) where !map.isEmpty {
            let pairs = map.sorted { $0.key < $1.key }
            let rows = try connection.query("""
                WITH moved AS (
                    UPDATE journey_states s SET version = \(version), step = x.n::smallint, due_at = now(), listens = NULL, last_send = NULL
                    FROM unnest(\(pairs.map { String($0.key) }), \(pairs.map { String($0.value) })) AS x(o, n)
                    WHERE s.journey_id = \(id)::uuid AND s.version = \(from) AND s.status = \(constants: [JourneyPlaceStatus.active]) AND s.step = x.o::smallint
                    RETURNING x.o::integer AS o, x.n::integer AS n, s.holdout
                )
                SELECT o, n, holdout, count(*)::integer AS devices FROM moved GROUP BY 1, 2, 3
                """).map { try $0.decode((Int, Int, Bool, Int).self, columns: "o", "n", "holdout", "devices") }
            for (old, new, holdout, devices) in rows {
                counts.add(id, from, step: old, .left, holdout: holdout, devices)
                counts.add(id, version, step: new, .reached, holdout: holdout, devices)
                moved += devices
            }
        }
        return (counts, moved)
    }

    /// The versions that have devices in the journey now.
    func activeVersions(_ id: JourneyID, on connection: PostgresConnection) throws -> [Int] {
        try connection.query("""
            SELECT DISTINCT version FROM journey_states WHERE journey_id = \(id)::uuid AND status = \(constants: [JourneyPlaceStatus.active])
            """).map { try $0.decode(Int.self, at: 0) }
    }

    /// Pauses (or resumes) the sending of the journey's steps: their requests wait, unclaimed.
    func pauseSteps(_ id: JourneyID, paused: Bool, on connection: PostgresConnection) throws {
        if paused {
            _ = try connection.execute("""
                UPDATE campaigns SET status = \(constants: [CampaignStatus.paused]), paused_from = status
                WHERE journey_id = \(id)::uuid AND status = \(constants: [CampaignStatus.sending])
                """)
        } else {
            _ = try connection.execute("""
                UPDATE campaigns SET status = paused_from, paused_from = NULL
                WHERE journey_id = \(id)::uuid AND status = \(constants: [CampaignStatus.paused]) AND paused_from IS NOT NULL
                """)
        }
    }

    /// The devices in the journey now, by the version they are on.
    func activePlaces(_ id: JourneyID, on connection: PostgresConnection) throws -> [(version: Int, token: String)] {
        try connection.query("""
            SELECT version, device_token FROM journey_states WHERE journey_id = \(id)::uuid AND status = \(constants: [JourneyPlaceStatus.active])
            """).map { try $0.decode((Int, String).self, columns: "version", "device_token") }
    }

    /// Ends every device's place (stopped): none moves or is sent anything more. Answers how many.
    func stopPlaces(_ id: JourneyID, on connection: PostgresConnection) throws -> [(version: Int, step: Int, holdout: Bool, count: Int)] {
        try connection.query("""
            WITH stopped AS (
                UPDATE journey_states SET status = \(constants: [JourneyPlaceStatus.stopped]), due_at = NULL, listens = NULL, left_at = now()
                WHERE journey_id = \(id)::uuid AND status = \(constants: [JourneyPlaceStatus.active])
                RETURNING version, step, holdout
            )
            SELECT version, step, holdout, count(*)::integer AS n FROM stopped GROUP BY 1, 2, 3
            """).map { try $0.decode((Int, Int, Bool, Int).self, columns: "version", "step", "holdout", "n") }
    }

    static func records(_ rows: PostgresRows) throws -> [JourneyRecord] {
        try rows.map { row in
            let (id, name, status, draft, version, published, createdBy, updatedBy, createdAt, updatedAt) =
                try row.decode((JourneyID, String, JourneyStatus, String, Int, Int?, String?, String?, Date, Date).self,
                               columns: "id", "name", "status", "draft", "version", "published_version", "created_by", "updated_by", "created_at", "updated_at")
            guard let json = try? JSON.parse(draft), case .success(let definition) = JourneyDefinition.parse(json) else {
                throw AppError.unavailable("Journey \(id)'s draft no longer reads as a journey.")
            }
            return JourneyRecord(id: id, name: name, status: status, draft: definition, version: version, publishedVersion: published,
                                 createdBy: createdBy, updatedBy: updatedBy, createdAt: createdAt, updatedAt: updatedAt)
        }
    }
}

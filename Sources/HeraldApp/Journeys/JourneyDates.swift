import Foundation
import HeraldCore
import HeraldPostgres

/// Journeys entered when a date property comes due. Each device's next moment per journey is a
/// row of `journey_dates`, written when the journey is published (for every device with the
/// property) and as devices are registered, updated or imported (for those); the journeys service
/// enters the devices whose moment came, a batch at a time, and deletes their rows. PostgreSQL
/// works the moments out from the devices' rows, so that publishing to millions of devices is
/// one statement, not a read of every device.
struct JourneyDates: Sendable {
    /// The moment each device (`devices d`) with a valid date in the property comes due, as
    /// `SELECT token, due`: the date (its first ten characters, as written) plus the offset, at the
    /// time of day in the device's zone (UTC without one, or with one PostgreSQL does not know).
    /// A value that is no date ("soon", "2027-02-30") gives no row. Its parameters: $1 the journey
    /// (for the statements around it), $2 the property, $3 the offset, $4 the time of day, and
    /// with `tokens` $5, the devices it is limited to.
    private static func statement(_ around: (String) -> String, journeyID: JourneyID, entry: JourneyDateEntry, tokens: [String]? = nil) -> PostgresQuery {
        let moments = """
            SELECT d.token, (x.day + $3::integer + $4::time) AT TIME ZONE coalesce(z.name, 'UTC') AS due
            FROM devices d
            CROSS JOIN LATERAL (SELECT d.properties ->> $2 AS v) p
            -- Each step is safe on any text: the pattern first, casts only of what it matched.
            CROSS JOIN LATERAL (SELECT CASE WHEN p.v !~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])' OR left(p.v, 4) = '0000' THEN NULL
                                            ELSE make_date(left(p.v, 4)::integer, substr(p.v, 6, 2)::integer, 1) + (substr(p.v, 9, 2)::integer - 1) END AS day) x
            LEFT JOIN pg_timezone_names z ON z.name = d.time_zone
            WHERE d.properties ? $2 AND d.\(DeviceStore.active) \(tokens == nil ? "" : "AND d.token = ANY($5)")
              -- "02-30" rolls over into March: such a date is none.
              AND to_char(x.day, 'DD') = substr(p.v, 9, 2)
            """
        let binds = [journeyID.description.postgresValue, entry.property.postgresValue, entry.offsetDays.postgresValue,
                     entry.at.description.postgresValue] + (tokens.map { [$0.postgresValue] } ?? [])
        return PostgresQuery(unsafeSQL: around(moments), binds: binds)
    }

    /// Writes the next moment of every device with the property (the journey just published);
    /// what an earlier version scheduled goes. Answers how many devices have a moment to come.
    @discardableResult
    func schedule(_ journeyID: JourneyID, _ entry: JourneyDateEntry?, on connection: PostgresConnection) throws -> Int {
        _ = try connection.execute("DELETE FROM journey_dates WHERE journey_id = \(journeyID)::uuid")
        guard let entry else { return 0 }
        return try connection.execute(Self.statement({ moments in """
            INSERT INTO journey_dates (journey_id, device_token, due_at)
            SELECT $1::uuid, m.token, m.due FROM (\(moments)) AS m WHERE m.due > now()
            """ }, journeyID: journeyID, entry: entry))
    }

    /// Devices just registered, updated or imported: their moment in each live date journey is
    /// written again from the property as it is now (a new date comes due again, a removed one
    /// no more). A moment already due and not yet entered is left to be entered.
    /// `journeys`: the live ones (those entered otherwise are passed over).
    func devicesStored(_ tokens: [String], journeys: [PublishedJourney], on connection: PostgresConnection) throws {
        for journey in journeys {
            guard let entry = journey.definition.entry.date else { continue }
            let journeyID = journey.journeyID
            _ = try connection.execute(Self.statement({ moments in """
                WITH m AS (\(moments)),
                gone AS (
                    DELETE FROM journey_dates j WHERE j.journey_id = $1::uuid AND j.device_token = ANY($5) AND j.due_at > now()
                      AND NOT EXISTS (SELECT 1 FROM m WHERE m.token = j.device_token AND m.due > now()))
                INSERT INTO journey_dates AS j (journey_id, device_token, due_at)
                SELECT $1::uuid, m.token, m.due FROM m WHERE m.due > now()
                ON CONFLICT (journey_id, device_token) DO UPDATE SET due_at = excluded.due_at WHERE j.due_at > now()
                """ }, journeyID: journeyID, entry: entry, tokens: tokens))
        }
    }

    /// Moments that passed while the journey was paused start nothing: it takes no entries then.
    func dropPassed(_ journeyID: JourneyID, on connection: PostgresConnection) throws {
        _ = try connection.execute("DELETE FROM journey_dates WHERE journey_id = \(journeyID)::uuid AND due_at <= now()")
    }

    /// Enters up to `limit` devices whose moment came by `now`, of every live date journey (their
    /// rows locked, SKIP LOCKED: instances share them), as the entry segment and the frequency
    /// allow. Answers how many entered.
    func enterDue(now: Date, limit: Int, on connection: PostgresConnection) throws -> Int {
        try connection.transaction { connection in
            let journeys = try connection.query("""
                SELECT id, published_version FROM journeys WHERE status = \(constants: [JourneyStatus.live]) AND entry_date IS NOT NULL
                """).map { try $0.decode((JourneyID, Int).self, columns: "id", "published_version") }
            var entered = 0
            var counts = JourneyCounts()
            for (journeyID, version) in journeys {
                let due = try connection.query("""
                    DELETE FROM journey_dates WHERE journey_id = \(journeyID)::uuid AND device_token IN (
                        SELECT device_token FROM journey_dates WHERE journey_id = \(journeyID)::uuid AND due_at <= to_timestamp(\(now.timeIntervalSince1970))
                        ORDER BY due_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                    RETURNING device_token
                    """).map { try $0.decode(String.self, at: 0) }
                guard !due.isEmpty, let journey = try JourneyCatalog.shared.version(journeyID, version, on: connection) else { continue }
                let events = JourneyEvents()
                entered += try events.admit(try events.eligible(due, for: journey.definition, now: now, on: connection), to: journey, counts: &counts, on: connection)
            }
            try counts.write(on: connection)
            return entered
        }
    }

    /// Seconds from `now` until the next moment of a live journey comes due (nil: none is written).
    func secondsUntilNext(now: Date, on connection: PostgresConnection) throws -> Double? {
        try connection.query("""
            SELECT extract(epoch FROM min(next.due_at) - to_timestamp(\(now.timeIntervalSince1970)))::float8
            FROM journeys j CROSS JOIN LATERAL (
                SELECT d.due_at FROM journey_dates d WHERE d.journey_id = j.id ORDER BY d.due_at LIMIT 1) AS next
            WHERE j.status = \(constants: [JourneyStatus.live]) AND j.entry_date IS NOT NULL
            """).first.flatMap { try $0.decode(Double?.self, at: 0) }
    }
}

import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// What the events apps report do to journeys, in the transaction that records them (only events
/// new to Herald: a retried batch moves no one twice): a goal event takes the device out of every
/// journey it is in whose goal it is; an event a resting device listens for wakes it; an entry
/// event starts the live journeys it starts for a device that may enter.
public struct JourneyEvents: Sendable {
    let catalog: JourneyCatalog

    public init() { catalog = .shared }
    init(catalog: JourneyCatalog) { self.catalog = catalog }

    /// The channel that wakes the journey service at once (a device entered or was woken).
    static let channel = "herald_journeys"

    func apply(_ events: [AppEvent], on connection: PostgresConnection) throws {
        guard !events.isEmpty else { return }
        let tokens = events.map(\.device.description), names = events.map(\.name)
        try reachGoals(tokens: tokens, names: names, on: connection)
        var woken = try wake(tokens: tokens, listening: names, on: connection)
        woken += try enter(events, on: connection)
        if woken > 0 { _ = try connection.query("SELECT pg_notify(\(Self.channel), '')") }
    }

    /// Opens and conversions wake the devices waiting for them (of the last message a journey sent).
    func wake(_ events: [EventStore.Event], on connection: PostgresConnection) throws {
        let reported = events.compactMap { event in event.deviceToken.map { ($0, event.type == .open ? "opened" : "converted") } }
        guard !reported.isEmpty else { return }
        if try wake(tokens: reported.map(\.0), listening: reported.map(\.1), on: connection) > 0 {
            _ = try connection.query("SELECT pg_notify(\(Self.channel), '')")
        }
    }

    /// Devices resting at a wait that listens for what they did are due now.
    private func wake(tokens: [String], listening: [String], on connection: PostgresConnection) throws -> Int {
        // What anyone listens for at all, of the batch's few names (journey_states_listening).
        let heard = Set(try connection.query("""
            SELECT n FROM unnest(\(Array(Set(listening)))) AS n
            WHERE EXISTS (SELECT 1 FROM journey_states s WHERE s.status = \(constants: [JourneyPlaceStatus.active]) AND s.listens = n)
            """).map { try $0.decode(String.self, at: 0) })
        guard !heard.isEmpty else { return 0 }
        let pairs = zip(tokens, listening).filter { heard.contains($0.1) }
        return try connection.execute("""
            UPDATE journey_states s SET due_at = now()
            FROM unnest(\(pairs.map(\.0)), \(pairs.map(\.1))) AS e(t, n)
            WHERE s.status = \(constants: [JourneyPlaceStatus.active]) AND s.listens = e.n AND s.device_token = e.t AND s.due_at > now()
            """)
    }

    /// Devices in a journey whose goal one of these events is leave it, counted as reaching it.
    private func reachGoals(tokens: [String], names: [String], on connection: PostgresConnection) throws {
        let left = try connection.query("""
            UPDATE journey_states s SET status = \(constants: [JourneyPlaceStatus.goal]), due_at = NULL, listens = NULL, left_at = now()
            FROM journeys j, unnest(\(tokens), \(names)) AS e(t, n)
            WHERE j.goal_event = e.n AND j.status IN (\(constants: [JourneyStatus.live, .paused]))
              AND s.journey_id = j.id AND s.device_token = e.t AND s.status = \(constants: [JourneyPlaceStatus.active])
              -- Named by the batch's devices (journey_states_device): joined on the batch alone, the
              -- planner walked the journey's every place (105 µs a device at a million).
              AND s.device_token = ANY(\(tokens))
            RETURNING s.journey_id, s.version, s.step, s.holdout, s.device_token, e.n
            """).map { try $0.decode((JourneyID, Int, Int, Bool, String, String).self, columns: "journey_id", "version", "step", "holdout", "device_token", "n") }
        var counts = JourneyCounts()
        for (journey, version, step, holdout, _, _) in left {
            counts.add(journey, version, step: JourneyCounts.wholeJourney, .goal, holdout: holdout)
            counts.add(journey, version, step: step, .left, holdout: holdout)
        }
        try counts.write(on: connection)
        try JourneyOutcomes().recordGoalConversions(of: left.filter { !$0.3 }.map { ($0.0, $0.1, $0.4) }, on: connection)
        try WebhookOutbox.enqueueJourneyEvents(.journeyGoalReached, left.map { ($0.0, $0.1, $0.4, ["event": .string($0.5)]) }, on: connection)
        try WebhookOutbox.enqueueJourneyEvents(.journeyExited, left.map { ($0.0, $0.1, $0.4, ["reason": .string(JourneyPlaceStatus.goal.rawValue)]) },
                                               on: connection)
    }

    /// Starts the live journeys these events enter, for each device that may enter: registered
    /// and active, in the entry segment, and not in the journey now (nor before, by its frequency).
    private func enter(_ events: [AppEvent], on connection: PostgresConnection) throws -> Int {
        let names = Array(Set(events.map(\.name)))
        let live = try connection.query("""
            SELECT id, published_version FROM journeys WHERE status = \(constants: [JourneyStatus.live]) AND entry_event = ANY(\(names))
            """).map { try $0.decode((JourneyID, Int).self, columns: "id", "published_version") }
        guard !live.isEmpty else { return 0 }
        let published = try catalog.versions(Set(live.map { JourneyCatalog.Key(journeyID: $0.0, version: $0.1) }), on: connection)
        var entered = 0
        var counts = JourneyCounts()
        let now = Date()
        for journey in published.values.sorted(by: { $0.journeyID.description < $1.journeyID.description }) {
            let definition = journey.definition
            var seen: Set<String> = []
            let tokens = events.filter { $0.name == definition.entry.event && seen.insert($0.device.description).inserted }.map(\.device.description)
            entered += try admit(try eligible(tokens, for: definition, now: now, on: connection), to: journey, counts: &counts, on: connection)
        }
        try counts.write(on: connection)
        return entered
    }

    /// Of `tokens`, those that may enter: registered, active devices (the journey sends to them),
    /// in the entry segment. (A token the device moved from to its FID finds it by the FID, which
    /// it enters with.)
    func eligible(_ tokens: [String], for definition: JourneyDefinition, now: Date, on connection: PostgresConnection) throws -> [String] {
        guard !tokens.isEmpty else { return [] }
        guard let segment = definition.entry.segment else { return try DeviceStore().activeTokens(named: tokens, on: connection) }
        return try DeviceStore().active(.tokens(tokens), after: nil, limit: tokens.count, on: connection).filter { stored in
            segment.matches(stored.device, daysSinceSeen: JourneyCounts.daysSinceSeen(stored.device, now: now))
        }.map(\.device.token)
    }

    /// Devices just registered, updated or imported enter the live journeys entered on joining a
    /// segment whose rule they match now, as the frequency allows (a device in the journey, or
    /// that was when it may not enter again, stays as it is). Wakes the journeys when any entered.
    /// Their moments in the journeys entered on a date are written again from their properties.
    func devicesStored(_ tokens: [String], on connection: PostgresConnection) throws {
        guard !tokens.isEmpty else { return }
        // One look for both kinds of journey a stored device concerns (on every registration and import batch).
        let live = try connection.query("""
            SELECT id, published_version FROM journeys
            WHERE status = \(constants: [JourneyStatus.live]) AND (entry_joins OR entry_date IS NOT NULL)
            """).map { try $0.decode((JourneyID, Int).self, columns: "id", "published_version") }
        guard !live.isEmpty else { return }
        let published = try catalog.versions(Set(live.map { JourneyCatalog.Key(journeyID: $0.0, version: $0.1) }), on: connection)
        try JourneyDates().devicesStored(tokens, journeys: Array(published.values), on: connection)
        var entered = 0
        var counts = JourneyCounts()
        for journey in published.values.sorted(by: { $0.journeyID.description < $1.journeyID.description }) {
            guard case .joins(let rule) = journey.definition.entry.trigger else { continue }
            // The rule answered by PostgreSQL over the devices just stored: an import's batch at a time.
            let condition = SegmentSQL.condition(rule, firstParameter: 2)
            let matching = try connection.query(PostgresQuery(unsafeSQL: """
                SELECT token FROM devices WHERE token = ANY($1) AND \(DeviceStore.active) AND \(condition.sql)
                """, binds: [tokens.postgresValue] + condition.binds)).map { try $0.decode(String.self, at: 0) }
            entered += try admit(matching, to: journey, counts: &counts, on: connection)
        }
        try counts.write(on: connection)
        if entered > 0 { _ = try connection.query("SELECT pg_notify(\(Self.channel), '')") }
    }

    /// Writes the places of `tokens` entering `journey` (each in its holdout or not), as the
    /// journey's frequency allows; counts and announces those that entered. Answers how many.
    func admit(_ tokens: [String], to journey: PublishedJourney, counts: inout JourneyCounts, on connection: PostgresConnection) throws -> Int {
        guard !tokens.isEmpty else { return 0 }
        let definition = journey.definition
        let holdouts = tokens.map { JourneyMachine.isHeldOut($0, journeyID: journey.journeyID.description, percent: definition.holdoutPercent) ? "true" : "false" }
        // A journey that begins with a wait of a set length puts its entrants at rest there at once
        // (what the first move would do, a write per device saved); any other first step is due now.
        let restSeconds = definition.firstRest.map { Double($0) * 60 } ?? 0
        let rows = try connection.query("""
            INSERT INTO journey_states AS s (journey_id, device_token, version, step, since, due_at, holdout, status, entered_at)
            SELECT \(journey.journeyID)::uuid, t, \(journey.version), 0, now(), now() + make_interval(secs => \(restSeconds)), h::boolean,
                   \(JourneyPlaceStatus.active), now()
            FROM unnest(\(tokens), \(holdouts)) AS x(t, h)
            ON CONFLICT (journey_id, device_token) DO UPDATE
                SET version = excluded.version, step = 0, since = now(), due_at = excluded.due_at, last_send = NULL, listens = NULL,
                    holdout = excluded.holdout, status = \(constants: [JourneyPlaceStatus.active]), entered_at = now(), left_at = NULL, entries = s.entries + 1
                WHERE s.status <> \(constants: [JourneyPlaceStatus.active]) AND \(definition.entry.frequency.reentryDays)::integer IS NOT NULL
                  AND s.entered_at <= now() - make_interval(days => \(definition.entry.frequency.reentryDays ?? 0)::integer)
            RETURNING holdout, device_token
            """).map { try $0.decode((Bool, String).self, columns: "holdout", "device_token") }
        try WebhookOutbox.enqueueJourneyEvents(.journeyEntered, rows.map { (journey.journeyID, journey.version, $0.1, ["holdout": .bool($0.0)]) },
                                               on: connection)
        for (holdout, _) in rows {
            counts.add(journey.journeyID, journey.version, step: JourneyCounts.wholeJourney, .entered, holdout: holdout)
            counts.add(journey.journeyID, journey.version, step: 0, .reached, holdout: holdout)
        }
        return rows.count
    }
}

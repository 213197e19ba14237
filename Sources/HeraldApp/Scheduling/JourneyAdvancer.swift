import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Moves devices through their journeys: a batch of due places at a time, each batch one
/// transaction (its places locked, SKIP LOCKED: instances share the work and never move a device
/// twice). What a device's move reads is gathered for the batch at once (its events, whether it
/// opened or converted the last message, its registry record); `JourneyMachine` decides; a send
/// step's request is written to the step's run by the one run writer, so the engine sends it by
/// every rule a campaign's request meets (quota, caps, pause, FID moves, erasure, the label
/// budget); the places and the report's counters are written with them.
struct JourneyAdvancer: Sendable {
    let catalog: JourneyCatalog

    init(catalog: JourneyCatalog = .shared) { self.catalog = catalog }

    /// A device's place as its row keeps it.
    struct Place: Sendable {
        var journeyID: JourneyID
        var token: DeviceToken
        var version: Int
        var place: JourneyPlace
        var holdout: Bool
        var enteredAt: Date
    }

    /// Moves up to `limit` devices due at `now`; returns how many it moved and how many requests it wrote.
    func advance(now: Date, limit: Int, on connection: PostgresConnection) throws -> (moved: Int, requests: Int) {
        try connection.transaction { connection in
            let places = try due(now: now, limit: limit, on: connection)
            guard !places.isEmpty else { return (0, 0) }
            let journeys = try catalog.versions(Set(places.map { JourneyCatalog.Key(journeyID: $0.journeyID, version: $0.version) }), on: connection)
            let facts = try self.facts(places, journeys: journeys, now: now, on: connection)
            var moves: [Move] = []
            var counts = JourneyCounts()
            var sends: [SendKey: [(Place, Device)]] = [:]
            for place in places {
                let key = JourneyCatalog.Key(journeyID: place.journeyID, version: place.version)
                guard let journey = journeys[key] else { continue }
                let known = facts[FactKey(journeyID: place.journeyID, token: place.token)] ?? JourneyFacts()
                guard let device = known.device else {
                    // No longer registered (invalid, forgotten): it leaves where it is.
                    moves.append(Move(place: place, status: .gone, step: place.place.step, since: place.place.since, due: nil, lastSend: place.place.lastSend, listens: nil))
                    counts.add(place.journeyID, place.version, step: place.place.step, .left, holdout: place.holdout)
                    counts.add(place.journeyID, place.version, step: JourneyCounts.wholeJourney, .gone, holdout: place.holdout)
                    continue
                }
                let advance = JourneyMachine.advance(journey.definition, from: place.place, facts: known, now: now)
                for step in advance.reached.dropFirst() { counts.add(place.journeyID, place.version, step: step, .reached, holdout: place.holdout) }
                for step in advance.sends {
                    if place.holdout {
                        counts.add(place.journeyID, place.version, step: step, .skipped, holdout: true)
                    } else {
                        sends[SendKey(journeyID: place.journeyID, version: place.version, step: step), default: []].append((place, device))
                    }
                }
                switch advance.end {
                case .waiting(let rest, let due):
                    for step in advance.reached.dropLast() { counts.add(place.journeyID, place.version, step: step, .left, holdout: place.holdout) }
                    moves.append(Move(place: place, status: .active, step: rest.step, since: rest.since, due: due, lastSend: rest.lastSend,
                                      listens: JourneyMachine.listensFor(journey.definition, at: rest.step)))
                case .completed(let lastSend):
                    for step in advance.reached { counts.add(place.journeyID, place.version, step: step, .left, holdout: place.holdout) }
                    counts.add(place.journeyID, place.version, step: JourneyCounts.wholeJourney, .completed, holdout: place.holdout)
                    moves.append(Move(place: place, status: .completed, step: advance.reached.last ?? place.place.step, since: now, due: nil,
                                      lastSend: lastSend, listens: nil))
                }
            }
            var requests = 0
            for (key, devices) in sends.sorted(by: { "\($0.key)" < "\($1.key)" }) {
                guard let campaignID = journeys[JourneyCatalog.Key(journeyID: key.journeyID, version: key.version)]?.campaigns[key.step] else { continue }
                let variants = try send(devices.map(\.1), campaignID: campaignID, now: now, on: connection)
                requests += variants.count
                counts.add(key.journeyID, key.version, step: key.step, .sent, holdout: false, variants.count)
                counts.add(key.journeyID, key.version, step: key.step, .skipped, holdout: false, devices.count - variants.count)
                // Each place keeps the variant of the last message it was sent (a goal's conversion is of it).
                for index in moves.indices where moves[index].place.journeyID == key.journeyID && moves[index].lastSend == key.step {
                    if let variant = variants[moves[index].place.token] { moves[index].lastVariant = variant }
                }
            }
            try write(moves, on: connection)
            try counts.write(on: connection)
            try WebhookOutbox.enqueueJourneyEvents(.journeyExited, moves.filter { $0.status != .active }.map { move in
                (move.place.journeyID, move.place.version, move.place.token.description, ["reason": .string(move.status.rawValue)])
            }, on: connection)
            if requests > 0 { _ = try connection.query("SELECT pg_notify(\(DeliveryStore.deliveryChannel), '')") }
            return (places.count, requests)
        }
    }

    /// Seconds until the next device is due to move (nil: none is waiting), of live journeys.
    func secondsUntilNextMove(now: Date, on connection: PostgresConnection) throws -> Double? {
        try connection.query("""
            SELECT extract(epoch FROM min(next.due_at) - to_timestamp(\(now.timeIntervalSince1970)))::float8
            FROM journeys j CROSS JOIN LATERAL (
                SELECT s.due_at FROM journey_states s
                WHERE s.journey_id = j.id AND s.status = \(constants: [JourneyPlaceStatus.active]) AND s.due_at IS NOT NULL
                ORDER BY s.due_at LIMIT 1) AS next
            WHERE j.status = \(constants: [JourneyStatus.live])
            """).first.flatMap { try $0.decode(Double?.self, at: 0) }
    }

    // MARK: - Reading a batch

    private func due(now: Date, limit: Int, on connection: PostgresConnection) throws -> [Place] {
        // In due order along journey_states_due, each live journey's first (locked, SKIP LOCKED:
        // instances share the work); a paused journey's devices keep their places, unread.
        try connection.query("""
            SELECT s.journey_id, s.device_token, s.version, s.step, extract(epoch FROM s.since)::float8 AS since, s.last_send, s.holdout,
                   extract(epoch FROM s.entered_at)::float8 AS entered_at
            FROM journeys j CROSS JOIN LATERAL (
                SELECT p.* FROM journey_states p
                WHERE p.journey_id = j.id AND p.status = \(constants: [JourneyPlaceStatus.active])
                  AND p.due_at <= to_timestamp(\(now.timeIntervalSince1970))
                ORDER BY p.due_at LIMIT \(limit)
                FOR UPDATE OF p SKIP LOCKED) AS s
            WHERE j.status = \(constants: [JourneyStatus.live])
            ORDER BY s.due_at LIMIT \(limit)
            """).map { row in
            let (journeyID, token, version, step, since, lastSend, holdout, entered) =
                try row.decode((JourneyID, DeviceToken, Int, Int, Double, Int?, Bool, Double).self,
                               columns: "journey_id", "device_token", "version", "step", "since", "last_send", "holdout", "entered_at")
            return Place(journeyID: journeyID, token: token, version: version,
                         place: JourneyPlace(step: step, since: Date(timeIntervalSince1970: since), lastSend: lastSend),
                         holdout: holdout, enteredAt: Date(timeIntervalSince1970: entered))
        }
    }

    struct FactKey: Hashable { var journeyID: JourneyID; var token: DeviceToken }

    /// What each place's move reads: the app events its journey reads since it entered, whether it
    /// opened or converted on the last message, and its registry record (nil: gone).
    private func facts(_ places: [Place], journeys: [JourneyCatalog.Key: PublishedJourney], now: Date,
                       on connection: PostgresConnection) throws -> [FactKey: JourneyFacts] {
        let tokens = Array(Set(places.map(\.token.description)))
        let devices = try DeviceStore().active(.tokens(tokens), after: nil, limit: tokens.count, on: connection)
        var byToken: [String: Device] = [:]
        for stored in devices { byToken[stored.device.token] = stored.device }
        var facts: [FactKey: JourneyFacts] = [:]
        for place in places {
            let device = byToken[place.token.description]
            facts[FactKey(journeyID: place.journeyID, token: place.token)] = JourneyFacts(
                device: device, daysSinceSeen: device.map { JourneyCounts.daysSinceSeen($0, now: now) } ?? 0)
        }
        // App events read by waits and branches, since each device entered.
        let reading = places.filter { !(journeys[JourneyCatalog.Key(journeyID: $0.journeyID, version: $0.version)]?.definition.eventsRead.isEmpty ?? true) }
        if !reading.isEmpty {
            let names = Array(Set(reading.flatMap { journeys[JourneyCatalog.Key(journeyID: $0.journeyID, version: $0.version)]?.definition.eventsRead ?? [] }))
            let rows = try connection.query("""
                SELECT DISTINCT x.j, x.t, e.name
                FROM unnest(\(reading.map(\.journeyID)), \(reading.map(\.token)), \(reading.map { String($0.enteredAt.timeIntervalSince1970) })) AS x(j, t, since)
                JOIN app_events e ON e.device_token = x.t AND e.name = ANY(\(names)) AND e.received_at >= to_timestamp(x.since::float8)
                """)
            for row in rows {
                let (journeyID, token, name) = try row.decode((JourneyID, DeviceToken, String).self, columns: "j", "t", "name")
                facts[FactKey(journeyID: journeyID, token: token)]?.events.insert(name)
            }
        }
        // Opens and conversions of the last message the journey sent each device.
        let sent = places.compactMap { place -> (Place, CampaignID)? in
            guard let step = place.place.lastSend,
                  let campaign = journeys[JourneyCatalog.Key(journeyID: place.journeyID, version: place.version)]?.campaigns[step] else { return nil }
            return (place, campaign)
        }
        if !sent.isEmpty {
            let rows = try connection.query("""
                SELECT DISTINCT x.j, x.t, e.type
                FROM unnest(\(sent.map(\.0.journeyID)), \(sent.map(\.0.token)), \(sent.map(\.1))) AS x(j, t, c)
                JOIN events e ON e.device_token = x.t AND e.campaign_id = x.c::uuid
                """)
            for row in rows {
                let (journeyID, token, type) = try row.decode((JourneyID, DeviceToken, EventType).self, columns: "j", "t", "type")
                switch type {
                case .open: facts[FactKey(journeyID: journeyID, token: token)]?.opened = true
                case .conversion: facts[FactKey(journeyID: journeyID, token: token)]?.converted = true
                }
            }
        }
        return facts
    }

    // MARK: - Writing a batch

    struct SendKey: Hashable { var journeyID: JourneyID; var version: Int; var step: Int }

    /// Writes the devices that get the step's message to the step's run, as batches the engine
    /// renders and sends; answers the variant each of them gets (a device in the message's
    /// control group or with its category switched off gets none), as the run's planner decides.
    private func send(_ devices: [Device], campaignID: CampaignID, now: Date, on connection: PostgresConnection) throws -> [DeviceToken: String] {
        let runs = JourneyRuns()
        let run = try runs.open(campaignID, on: connection)
        guard let planner = runs.planner(run, campaignID: campaignID, now: now) else { return [:] }
        var variants: [DeviceToken: String] = [:]
        var tokens: [DeviceToken] = []
        for device in devices {
            guard let variant = planner.variant(for: device) else { continue }
            let token = DeviceToken(device.token)
            if variants.updateValue(variant.key, forKey: token) == nil { tokens.append(token) }
        }
        try RunWriter().insertFirstDevices(runID: run.id, campaignID: campaignID, tokens: tokens, on: connection)
        return variants
    }

    /// A place as the move left it.
    struct Move {
        var place: Place
        var status: JourneyPlaceStatus
        var step: Int
        var since: Date
        var due: Date?
        var lastSend: Int?
        var listens: String?
        var lastVariant: String?
    }

    private func write(_ moves: [Move], on connection: PostgresConnection) throws {
        guard !moves.isEmpty else { return }
        _ = try connection.execute("""
            UPDATE journey_states s SET status = x.st, step = x.sp::smallint, since = to_timestamp(x.si::float8),
                due_at = to_timestamp(nullif(x.du, '')::float8), last_send = nullif(x.ls, '')::smallint, listens = nullif(x.li, ''),
                -- A move that sent nothing keeps the variant of the message sent before.
                last_variant = coalesce(nullif(x.lv, ''), CASE WHEN x.ls = s.last_send::text THEN s.last_variant END),
                left_at = CASE WHEN x.st = \(JourneyPlaceStatus.active) THEN NULL ELSE now() END
            FROM unnest(\(moves.map(\.place.journeyID)), \(moves.map(\.place.token)), \(moves.map(\.status)), \(moves.map { String($0.step) }),
                        \(moves.map { String($0.since.timeIntervalSince1970) }), \(moves.map { DeliveryStore.epoch($0.due) }),
                        \(moves.map { $0.lastSend.map(String.init) ?? "" }), \(moves.map { $0.listens ?? "" }), \(moves.map { $0.lastVariant ?? "" }))
                 AS x(j, t, st, sp, si, du, ls, li, lv)
            WHERE s.journey_id = x.j::uuid AND s.device_token = x.t
            """)
    }
}

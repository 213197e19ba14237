import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// Every use case of journeys, written once for the REST API and the pages. Each write is one
/// transaction with its audit entry.
///
/// A journey is written as a draft; publishing makes the draft the version new entrants take (and,
/// with approvals on, needs a publisher who did not write the draft's last edit: two people, as a
/// campaign's approval). Devices already in it finish the version they entered on, unless the
/// publisher moves them: each to the step of the same name in the new version (a wait keeps
/// the time it began, and is measured again by the new step); a device at a step the new version
/// has no namesake of stays where it is and finishes its version. Pause stops entries and sends
/// and keeps every place and wait; resume goes on; stop ends it for everyone.
public struct JourneyService: Sendable {
    let database: Database
    let approvalsRequired: Bool
    let store = JourneyStore()
    let audit = AuditLog()

    public static let defaultPageSize = 20
    public static let maximumPageSize = 100

    public init(database: Database, approvalsRequired: Bool) {
        self.database = database
        self.approvalsRequired = approvalsRequired
    }

    static func definition(_ json: JSON) throws -> JourneyDefinition {
        switch JourneyDefinition.parse(json) {
        case .success(let definition): return definition
        case .failure(let errors): throw AppError.invalid(errors, title: "The journey is not valid")
        }
    }

    public func create(_ json: JSON, by actor: Actor) throws -> JourneyRecord {
        let definition = try Self.definition(json)
        return try database.transaction { connection in
            let record = try store.insert(definition, by: actor.name, on: connection)
            try audit.record(.journeyCreated, by: actor, object: .journey(record.id), details: ["name": .string(record.name)], on: connection)
            return record
        }
    }

    public func get(_ id: JourneyID) throws -> JourneyRecord {
        guard let record = try database.read({ try store.find(id, on: $0) }) else { throw AppError.notFound(.journey(id.description)) }
        return record
    }

    /// Newest first, `limit` after the journey `after`.
    public func list(limit: Int = defaultPageSize, after: JourneyID?) throws -> (journeys: [JourneyRecord], next: JourneyID?) {
        let page = try database.read { try store.list(limit: limit + 1, after: after, on: $0) }
        return (Array(page.prefix(limit)), page.count > limit ? page[limit - 1].id : nil)
    }

    /// Saves the draft (`expectedVersion`: the version the editor read). A live journey's devices
    /// are untouched until the draft is published.
    public func update(_ id: JourneyID, _ json: JSON, expectedVersion: Int, by actor: Actor) throws -> JourneyRecord {
        let definition = try Self.definition(json)
        return try database.transaction { connection in
            guard let current = try store.find(id, forUpdate: true, on: connection) else { throw AppError.notFound(.journey(id.description)) }
            guard current.status != .stopped else {
                throw AppError.conflict(code: "journey_stopped", title: "The journey is stopped", detail: "A stopped journey is not edited; copy it into a new one.")
            }
            guard let saved = try store.update(id, expectedVersion: expectedVersion, draft: definition, by: actor.name, on: connection) else {
                throw AppError.versionMismatch(currentVersion: current.version, expectedVersion: expectedVersion)
            }
            try audit.record(.journeyUpdated, by: actor, object: .journey(id), details: ["version": .number(Double(saved.version))], on: connection)
            return saved
        }
    }

    /// Publishes the draft as the next version (live at once, unless paused); with `moveDevices`,
    /// the devices in older versions move to the new one's namesake steps. Answers the journey and
    /// how many devices moved.
    public func publish(_ id: JourneyID, expectedVersion: Int?, moveDevices: Bool, by actor: Actor) throws -> (journey: JourneyRecord, moved: Int) {
        try database.transaction { connection in
            guard let record = try store.find(id, forUpdate: true, on: connection) else { throw AppError.notFound(.journey(id.description)) }
            if let expectedVersion, expectedVersion != record.version {
                throw AppError.versionMismatch(currentVersion: record.version, expectedVersion: expectedVersion)
            }
            guard record.status != .stopped else {
                throw AppError.conflict(code: "journey_stopped", title: "The journey is stopped", detail: "A stopped journey is not published again; copy it into a new one.")
            }
            if approvalsRequired {
                guard actor.role == nil || actor.role == .publisher || actor.role == .admin else {
                    throw AppError.notAllowed("With approvals on (HERALD_APPROVALS), a journey is published by a publisher.")
                }
                guard actor.role == nil || record.updatedBy != actor.name else {
                    throw AppError.conflict(code: "approval_required", title: "A second person publishes",
                                            detail: "With approvals on, the draft's last edit (by \(actor.name)) is published by another publisher: two people see every message a journey sends.")
                }
            }
            let version = try store.publish(record, record.draft, by: actor, on: connection)
            var moved = 0
            if moveDevices {
                var moves: [Int: [Int: Int]] = [:]
                for old in try store.activeVersions(id, on: connection) where old != version {
                    guard let published = try JourneyCatalog.shared.version(id, old, on: connection) else { continue }
                    moves[old] = record.draft.moves(from: published.definition)
                }
                let move = try store.move(id, to: version, moves: moves, on: connection)
                try move.counts.write(on: connection)
                moved = move.moved
                if moved > 0 { _ = try connection.query("SELECT pg_notify(\(JourneyEvents.channel), '')") }
            }
            try audit.record(.journeyPublished, by: actor, object: .journey(id), details: [
                "version": .number(Double(version)), "moved_devices": .number(Double(moved)),
            ], on: connection)
            guard let published = try store.find(id, on: connection) else { throw AppError.notFound(.journey(id.description)) }
            return (published, moved)
        }
    }

    public func pause(_ id: JourneyID, by actor: Actor) throws -> JourneyRecord {
        try change(id, by: actor, action: .journeyPaused, from: [.live], to: .paused, refusal: "Only a live journey is paused.") { connection in
            try store.pauseSteps(id, paused: true, on: connection)
        }
    }

    public func resume(_ id: JourneyID, by actor: Actor) throws -> JourneyRecord {
        try change(id, by: actor, action: .journeyResumed, from: [.paused], to: .live, refusal: "Only a paused journey is resumed.") { connection in
            try store.pauseSteps(id, paused: false, on: connection)
            try JourneyDates().dropPassed(id, on: connection)
            // Waits that fell due while it was paused move now.
            _ = try connection.query("SELECT pg_notify(\(JourneyEvents.channel), '')")
        }
    }

    /// Ends the journey for everyone: no entries, no moves; requests already written are sent.
    public func stop(_ id: JourneyID, by actor: Actor) throws -> JourneyRecord {
        try change(id, by: actor, action: .journeyStopped, from: [.live, .paused, .draft], to: .stopped, refusal: "The journey is already stopped.") { connection in
            try store.pauseSteps(id, paused: false, on: connection)
            if try WebhookOutbox.isListened(.journeyExited, on: connection) {
                try WebhookOutbox.enqueueJourneyEvents(.journeyExited, try store.activePlaces(id, on: connection).map {
                    (id, $0.version, $0.token, ["reason": .string(JourneyPlaceStatus.stopped.rawValue)])
                }, on: connection)
            }
            var counts = JourneyCounts()
            for (version, step, holdout, count) in try store.stopPlaces(id, on: connection) {
                counts.add(id, version, step: step, .left, holdout: holdout, count)
                counts.add(id, version, step: JourneyCounts.wholeJourney, .stopped, holdout: holdout, count)
            }
            try counts.write(on: connection)
            try JourneyRuns().close(journey: id, on: connection)
            try JourneyDates().schedule(id, nil, on: connection)
        }
    }

    /// Deletes a draft that was never published, or a stopped journey (its report goes with it).
    public func delete(_ id: JourneyID, by actor: Actor) throws {
        try database.transaction { connection in
            guard let record = try store.find(id, forUpdate: true, on: connection) else { throw AppError.notFound(.journey(id.description)) }
            guard record.publishedVersion == nil || record.status == .stopped else {
                throw AppError.conflict(code: "journey_live", title: "The journey is published",
                                        detail: "A published journey is stopped before it is deleted: devices are in it.")
            }
            try store.delete(id, on: connection)
            try audit.record(.journeyDeleted, by: actor, object: .journey(id), details: ["name": .string(record.name)], on: connection)
        }
    }

    private func change(_ id: JourneyID, by actor: Actor, action: AuditAction, from: Set<JourneyStatus>, to status: JourneyStatus, refusal: String,
                        _ body: (PostgresConnection) throws -> Void) throws -> JourneyRecord {
        try database.transaction { connection in
            guard let record = try store.find(id, forUpdate: true, on: connection) else { throw AppError.notFound(.journey(id.description)) }
            guard from.contains(record.status) else {
                throw AppError.conflict(code: "journey_\(record.status.rawValue)", title: "The journey is \(record.status.rawValue)", detail: refusal)
            }
            try store.setStatus(id, status, on: connection)
            try body(connection)
            try audit.record(action, by: actor, object: .journey(id), on: connection)
            guard let changed = try store.find(id, on: connection) else { throw AppError.notFound(.journey(id.description)) }
            return changed
        }
    }
}

import Foundation
import HeraldCore
import HeraldPostgres

/// The report's counters of a batch of moves, written as one insert (`journey_counts`: rows
/// never updated, summed when read).
struct JourneyCounts: Sendable {
    enum Counter: String, Sendable, CaseIterable {
        /// Devices that entered (the whole journey), or reached a step.
        case entered, reached
        /// Devices that moved past a step (a wait's waiting are its reached minus its left).
        case left
        /// At a send step: requests written, and devices sent nothing (the journey's holdout, the
        /// message's control group or quiet category: `skipped`).
        case sent, skipped
        /// The whole journey: devices that left by the goal, finished it, were stopped, or went away.
        case goal, completed, stopped, gone
    }

    /// The step number of counts of the journey as a whole.
    static let wholeJourney = -1

    struct Key: Hashable {
        var journeyID: JourneyID
        var version: Int
        var step: Int
        var counter: Counter
        var holdout: Bool
    }

    private(set) var counts: [Key: Int] = [:]

    mutating func add(_ journeyID: JourneyID, _ version: Int, step: Int, _ counter: Counter, holdout: Bool, _ n: Int = 1) {
        counts[Key(journeyID: journeyID, version: version, step: step, counter: counter, holdout: holdout), default: 0] += n
    }

    func write(on connection: PostgresConnection) throws {
        guard !counts.isEmpty else { return }
        let rows = counts.sorted { "\($0.key)" < "\($1.key)" }
        _ = try connection.execute("""
            INSERT INTO journey_counts (journey_id, version, step, counter, holdout, n)
            SELECT j::uuid, v::integer, s::smallint, c, h::boolean, n::bigint
            FROM unnest(\(rows.map(\.key.journeyID)), \(rows.map { String($0.key.version) }), \(rows.map { String($0.key.step) }),
                        \(rows.map(\.key.counter.rawValue)), \(rows.map { $0.key.holdout ? "true" : "false" }), \(rows.map { String($0.value) }))
                 AS x(j, v, s, c, h, n)
            """)
    }

    /// Days since a device was last seen, as segment rules count them (0 when never said).
    static func daysSinceSeen(_ device: Device, now: Date) -> Double {
        device.lastSeen.map { now.timeIntervalSince($0) / 86400 } ?? 0
    }
}

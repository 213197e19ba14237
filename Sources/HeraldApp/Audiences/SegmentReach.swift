import Foundation
import HeraldCore
import HeraldPostgres

/// A saved segment's reach as its row keeps it (`segments.reach`, Migrations/0050): counted
/// when the segment is saved, and again by the leader once older than `freshFor`, so that no list
/// or page waits for a count (a rule the census cannot answer reads the registry: seconds at ten
/// million devices).
enum SegmentReach {
    /// How old a kept count grows before the background counts it again.
    static let freshFor: Duration = .seconds(300)

    /// The active devices `rule` reaches, kept as segment `id`'s reach when the segment still has
    /// that rule (an edit in between keeps its own count).
    @discardableResult
    static func count(_ id: SegmentID, rule: SegmentRule, on connection: PostgresConnection) throws -> (devices: Int, countedAt: Date) {
        let devices = try DeviceStore().count(rule, on: connection)
        let countedAt = try connection.query("""
            UPDATE segments SET reach = \(devices), reach_counted_at = now()
            WHERE id = \(id)::uuid AND rule = \(PostgresJSONB(rule.toJSON().serializedString()))
            RETURNING reach_counted_at
            """).first?.decode(Date.self, at: 0)
        return (devices, countedAt ?? Date())
    }

    /// Counts again the segments whose count is older than `freshFor` (never counted first,
    /// then oldest first), one at a time, until none is left or `budget` is spent; answers how
    /// many it counted. Instances share the work (each segment locked, SKIP LOCKED).
    static func renewStale(budget: Duration, on connection: PostgresConnection) throws -> Int {
        let clock = ContinuousClock()
        let start = clock.now
        var counted = 0
        while clock.now - start < budget {
            let renewed = try connection.transaction { connection -> Bool in
                guard let segment = try connection.query("""
                    SELECT \(fragment: SegmentService.columns) FROM segments
                    WHERE reach_counted_at IS NULL OR reach_counted_at < now() - make_interval(secs => \(Self.freshFor.seconds))
                    ORDER BY reach_counted_at NULLS FIRST LIMIT 1 FOR UPDATE SKIP LOCKED
                    """).map(SegmentService.decode).first else { return false }
                try count(segment.id, rule: segment.rule, on: connection)
                return true
            }
            guard renewed else { break }
            counted += 1
        }
        return counted
    }
}

import HeraldApp
import HeraldPostgres

extension DeliveryEngine {
    /// Returns once the scheduler has looked for due work since the call, and after that every
    /// worker has looked for deliveries (so a run that look started is seen too); false if they did
    /// not within `waitingLimit`. A test checks after it that nothing came of what it did: unlike a
    /// sleep, this fails when the engine never looked. The loops are woken through the database,
    /// as any change wakes them, so that none sleeps out its poll interval.
    public func looksAgain(waking databaseURL: String) async throws -> Bool {
        let connection = try PostgresConnection(url: databaseURL)
        defer { connection.close() }
        for _ in 0..<2 {
            let before = progress
            _ = try connection.query("SELECT pg_notify('herald_schedule', ''), pg_notify('herald_deliveries', '')")
            guard try await eventually(timeout: waitingLimit, { progress.haveLookedAgain(since: before) }) else { return false }
        }
        return true
    }
}

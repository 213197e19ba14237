import Foundation
import HeraldCore
import HeraldJSON
import Testing
@testable import HeraldApp

/// When the scheduler arms a campaign and moves a recurring one on: daylight saving in
/// Europe/Berlin, times already past, and missed occurrences after an outage.
@Suite struct SchedulingArmingTests {
    static func spec(_ schedule: JSON) throws -> CampaignSpec {
        let json: JSON = ["name": "Morning", "notification": ["title": "Good morning", "body": "News"], "topics": ["news"],
                          "schedule": schedule]
        guard case .success(let spec) = CampaignSpec.parse(json) else { throw CampaignInvalid() }
        return spec
    }

    struct CampaignInvalid: Error {}

    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func dailyNineInBerlinRunsAtEightUTCInWinterAndSevenInSummer() throws {
        let spec = try Self.spec(["kind": "daily", "time": "09:00", "time_zone": "Europe/Berlin"])
        // Clocks go forward on Sunday 29 March 2026.
        let first = try Arming.firstRun(of: spec, now: Self.utc("2026-03-27T10:00:00Z")).get()
        #expect(first == Self.utc("2026-03-28T08:00:00Z"))
        let second = try #require(Arming.nextRun(of: spec, after: first, now: first))
        #expect(second == Self.utc("2026-03-29T07:00:00Z"))
        let third = try #require(Arming.nextRun(of: spec, after: second, now: second))
        #expect(third == Self.utc("2026-03-30T07:00:00Z"))
    }

    @Test func missedOccurrencesAreSkippedNotSentInABurst() throws {
        let spec = try Self.spec(["kind": "daily", "time": "09:00", "time_zone": "Europe/Berlin"])
        // The last run was three days ago (an outage): the next one is the first still ahead.
        let next = Arming.nextRun(of: spec, after: Self.utc("2026-01-10T08:00:00Z"), now: Self.utc("2026-01-13T12:00:00Z"))
        #expect(next == Self.utc("2026-01-14T08:00:00Z"))
    }

    @Test func aPastOneOffOrAFinishedRecurrenceIsRefusedNamingTheField() throws {
        let now = Self.utc("2026-06-01T12:00:00Z")
        let past = try Self.spec(["kind": "once", "at": "2026-06-01T09:00", "time_zone": "Europe/Berlin"])
        guard case .failure(let errors) = Arming.firstRun(of: past, now: now) else { Issue.record("a past time was armed"); return }
        #expect(errors.errors.map(\.path) == ["schedule.at"])
        let ended = try Self.spec(["kind": "daily", "time": "09:00", "time_zone": "Europe/Berlin", "until": "2026-05-31"])
        guard case .failure(let finished) = Arming.firstRun(of: ended, now: now) else { Issue.record("an ended schedule was armed"); return }
        #expect(finished.errors.map(\.path) == ["schedule.until"])
        #expect(Arming.nextRun(of: past, after: now, now: now) == nil)
    }

    @Test func withoutAWallClockScheduleTheFirstRunIsNow() throws {
        let now = Date()
        #expect(try Arming.firstRun(of: try Self.spec(["kind": "now"]), now: now).get() == now)
    }
}

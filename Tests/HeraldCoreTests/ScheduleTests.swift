import Foundation
import HeraldCore
import HeraldJSON
import Testing

@Suite struct ScheduleTests {
    func utc(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text)!
    }

    func iso(_ date: Date?) -> String? {
        date.map { ISO8601DateFormatter().string(from: $0) }
    }

    let nine = LocalTime(hour: 9, minute: 0)!

    @Test func nineInBerlinIsEightUTCInWinterAndSevenInSummer() {
        let daily = Schedule.daily(at: nine, timeZone: "Europe/Berlin", until: nil)
        #expect(iso(daily.nextOccurrence(after: utc("2026-01-15T00:00:00Z"))) == "2026-01-15T08:00:00Z")
        #expect(iso(daily.nextOccurrence(after: utc("2026-07-15T00:00:00Z"))) == "2026-07-15T07:00:00Z")
        // Walking across the spring change: each local 09:00 once, the UTC hour moving by one.
        var instant = utc("2026-03-27T08:00:00Z")
        var seen: [String] = []
        for _ in 0..<3 {
            guard let next = daily.nextOccurrence(after: instant) else { break }
            seen.append(iso(next)!)
            instant = next
        }
        #expect(seen == ["2026-03-28T08:00:00Z", "2026-03-29T07:00:00Z", "2026-03-30T07:00:00Z"])
    }

    @Test func aSkippedTimeMovesToTheEndOfTheGap() {
        // On 2026-03-29 Berlin clocks jump from 02:00 to 03:00: 02:30 does not exist and means 03:00 CEST.
        let daily = Schedule.daily(at: LocalTime(hour: 2, minute: 30)!, timeZone: "Europe/Berlin", until: nil)
        #expect(iso(daily.nextOccurrence(after: utc("2026-03-28T12:00:00Z"))) == "2026-03-29T01:00:00Z")
        #expect(iso(daily.nextOccurrence(after: utc("2026-03-27T12:00:00Z"))) == "2026-03-28T01:30:00Z")
        #expect(iso(daily.nextOccurrence(after: utc("2026-03-29T01:00:00Z"))) == "2026-03-30T00:30:00Z")
        let once = Schedule.once(at: LocalDateTime("2026-03-29T02:30")!, timeZone: "Europe/Berlin")
        #expect(iso(once.nextOccurrence(after: utc("2026-01-01T00:00:00Z"))) == "2026-03-29T01:00:00Z")
    }

    @Test func aRepeatedTimeMeansItsFirstOccurrence() {
        // On 2026-10-25 Berlin clocks fall back from 03:00 to 02:00: 02:30 happens at 00:30 and 01:30 UTC.
        let once = Schedule.once(at: LocalDateTime("2026-10-25T02:30")!, timeZone: "Europe/Berlin")
        #expect(iso(once.nextOccurrence(after: utc("2026-10-01T00:00:00Z"))) == "2026-10-25T00:30:00Z")
        let daily = Schedule.daily(at: LocalTime(hour: 2, minute: 30)!, timeZone: "Europe/Berlin", until: nil)
        // Never twice on that day: after the first, the next is the following day.
        #expect(iso(daily.nextOccurrence(after: utc("2026-10-25T00:30:00Z"))) == "2026-10-26T01:30:00Z")
    }

    @Test func zonesFarFromUTC() {
        let kiritimati = Schedule.daily(at: LocalTime(hour: 0, minute: 30)!, timeZone: "Pacific/Kiritimati", until: nil)
        #expect(iso(kiritimati.nextOccurrence(after: utc("2026-01-15T00:00:00Z"))) == "2026-01-15T10:30:00Z")
        let honolulu = Schedule.daily(at: LocalTime(hour: 23, minute: 30)!, timeZone: "Pacific/Honolulu", until: nil)
        #expect(iso(honolulu.nextOccurrence(after: utc("2026-01-15T00:00:00Z"))) == "2026-01-15T09:30:00Z")
    }

    @Test func weeklyOnChosenDaysUntilTheLastDate() {
        // 2026-01-05 is a Monday.
        let weekly = Schedule.weekly(on: [.mon, .thu], at: nine, timeZone: "America/New_York", until: LocalDate("2026-01-15"))
        var instant = utc("2026-01-01T00:00:00Z")
        var seen: [String] = []
        while let next = weekly.nextOccurrence(after: instant), seen.count < 10 {
            seen.append(iso(next)!)
            instant = next
        }
        #expect(seen == ["2026-01-01T14:00:00Z", "2026-01-05T14:00:00Z", "2026-01-08T14:00:00Z", "2026-01-12T14:00:00Z", "2026-01-15T14:00:00Z"])
    }

    @Test func aYearOfDailyOccurrencesEachOnceAndInOrder() {
        let daily = Schedule.daily(at: LocalTime(hour: 2, minute: 30)!, timeZone: "America/Santiago", until: nil)
        var instant = utc("2026-01-01T00:00:00Z")
        var count = 0
        while let next = daily.nextOccurrence(after: instant), count < 365 {
            #expect(next > instant)
            #expect(next.timeIntervalSince(instant) >= 22 * 3600 || count == 0)
            instant = next
            count += 1
        }
        #expect(count == 365)
    }

    @Test func oneOffsInThePastAndNowHaveNoNextOccurrence() {
        #expect(Schedule.once(at: LocalDateTime("2020-01-01T00:00")!, timeZone: "UTC").nextOccurrence(after: utc("2026-01-01T00:00:00Z")) == nil)
        #expect(Schedule.now.nextOccurrence(after: utc("2026-01-01T00:00:00Z")) == nil)
    }

    @Test func jsonRoundTripAndErrors() throws {
        let schedules: [Schedule] = [
            .now, .once(at: LocalDateTime("2026-03-29T02:30")!, timeZone: "Europe/Berlin"),
            .daily(at: nine, timeZone: "Asia/Tehran", until: LocalDate("2026-12-31")),
            .weekly(on: [.sun, .mon], at: LocalTime(hour: 18, minute: 5, second: 30)!, timeZone: "Asia/Jerusalem", until: nil),
        ]
        for schedule in schedules {
            #expect(Schedule.parse(schedule.toJSON()) == .success(schedule))
        }
        #expect(Schedule.daily(at: nine, timeZone: "UTC", until: nil).toJSON() == ["kind": "daily", "time": "09:00", "time_zone": "UTC"])
        let bad = try JSON.parse(#"{"kind": "weekly", "days": ["mon", "funday", "mon"], "time": "25:00", "time_zone": "Mars/Olympus", "at": "x"}"#)
        guard case .failure(let failure) = Schedule.parse(bad) else {
            Issue.record("expected errors")
            return
        }
        #expect(Set(failure.errors.map { "\($0.path) \($0.code)" }) == [
            "schedule.at unknown_field", "schedule.time_zone invalid_time_zone", "schedule.time invalid_value",
            "schedule.days[1] invalid_value", "schedule.days[2] duplicate",
        ])
    }

    @Test func aCampaignCarriesItsSchedule() throws {
        let spec = try campaign("""
            {"name": "n", "notification": {"body": "b"}, "topics": ["t"],
             "schedule": {"kind": "daily", "time": "09:00", "time_zone": "Europe/Berlin"}}
            """)
        #expect(spec.schedule == .daily(at: nine, timeZone: "Europe/Berlin", until: nil))
        #expect(CampaignSpec.parse(spec.toJSON()) == .success(spec))
        let found = try errors(of: #"{"name": "n", "notification": {"body": "b"}, "topics": ["t"], "schedule": {"kind": "sometimes"}}"#)
        #expect(found.map { "\($0.path) \($0.code)" } == ["schedule.kind invalid_value"])
    }

    @Test func localDatesAndWeekdays() {
        #expect(LocalDate("2026-01-05")?.weekday == .mon)
        #expect(LocalDate("2024-02-29") != nil)
        #expect(LocalDate("2026-02-29") == nil)
        #expect(LocalDate("2026-1-05") == nil)
        #expect(LocalDate(daysSinceEpoch: 0).description == "1970-01-01")
        #expect(LocalDate("2000-03-01")?.daysSinceEpoch == 11017)
        #expect(LocalDate(daysSinceEpoch: 11017).description == "2000-03-01")
    }
}

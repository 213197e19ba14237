import Foundation

/// When a campaign is sent: at once, once at a wall-clock time in an IANA time zone, or every day
/// or on some days of the week at a wall-clock time, optionally until a last date. Wall-clock
/// times follow daylight saving as `WallClock` documents (a skipped time moves forward to the end
/// of the gap; a repeated time means its first occurrence).
public enum Schedule: Sendable, Equatable {
    /// As soon as it is scheduled. It has no wall-clock occurrence: `nextOccurrence` is nil.
    case now
    /// Once, when clocks in `timeZone` read `at`.
    case once(at: LocalDateTime, timeZone: String)
    /// Every day at `time` in `timeZone`, up to and including the local date `until`.
    case daily(at: LocalTime, timeZone: String, until: LocalDate?)
    /// On `days` at `time` in `timeZone`, up to and including the local date `until`.
    case weekly(on: Set<Weekday>, at: LocalTime, timeZone: String, until: LocalDate?)

    /// The IANA zone identifier, when the schedule has one.
    public var timeZoneIdentifier: String? {
        switch self {
        case .now: nil
        case .once(_, let zone), .daily(_, let zone, _), .weekly(_, _, let zone, _): zone
        }
    }

    /// Whether it repeats.
    public var isRecurring: Bool {
        switch self {
        case .daily, .weekly: true
        case .now, .once: false
        }
    }

    /// The first occurrence strictly after `instant`, or nil when there is none (a past one-off,
    /// a recurrence past its end, `.now`, or an unknown zone). Successive calls with the previous
    /// occurrence walk a recurring schedule one occurrence at a time, each exactly once.
    public func nextOccurrence(after instant: Date) -> Date? {
        guard let identifier = timeZoneIdentifier, let zone = TimeZone(identifier: identifier) else { return nil }
        switch self {
        case .now:
            return nil
        case .once(let local, _):
            let due = WallClock.instant(of: local, in: zone)
            return due > instant ? due : nil
        case .daily(let time, _, let until):
            return next(after: instant, zone: zone, time: time, until: until) { _ in true }
        case .weekly(let days, let time, _, let until):
            guard !days.isEmpty else { return nil }
            return next(after: instant, zone: zone, time: time, until: until) { days.contains($0.weekday) }
        }
    }

    private func next(after instant: Date, zone: TimeZone, time: LocalTime, until: LocalDate?, on include: (LocalDate) -> Bool) -> Date? {
        // Start a day early: the local date of `instant` may be behind a time that is still ahead.
        let start = WallClock.local(at: instant, in: zone).date.adding(days: -1)
        for offset in 0...9 {
            let date = start.adding(days: offset)
            if let until, date > until { return nil }
            guard include(date) else { continue }
            let due = WallClock.instant(of: LocalDateTime(date: date, time: time), in: zone)
            if due > instant { return due }
        }
        return nil
    }
}

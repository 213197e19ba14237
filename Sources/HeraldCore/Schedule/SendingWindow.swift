import Foundation
import HeraldJSON

/// The local hours a campaign may send in (its quiet hours are the rest of the day): from `start`
/// to `end` in an IANA zone; an `end` before `start` runs past midnight. Sending pauses at the
/// window's end and resumes at its next start; instants come from `WallClock`, so a window's
/// hours stay local hours across daylight-saving changes.
public struct SendingWindow: Sendable, Equatable {
    public var start: LocalTime
    public var end: LocalTime
    public var timeZone: String

    public init(start: LocalTime, end: LocalTime, timeZone: String) {
        self.start = start
        self.end = end
        self.timeZone = timeZone
    }

    /// One stretch of sending time.
    public struct Interval: Sendable, Equatable {
        public var opens: Date
        public var closes: Date

        public init(opens: Date, closes: Date) {
            self.opens = opens
            self.closes = closes
        }
    }

    /// The interval `instant` is in, or else the next one (its `opens` is then later than `instant`).
    public func interval(around instant: Date) -> Interval {
        let zone = TimeZone(identifier: timeZone) ?? .gmt
        let today = WallClock.local(at: instant, in: zone).date
        // A window that runs past midnight may have opened the day before.
        for offset in -1...2 {
            let day = today.adding(days: offset)
            let opens = WallClock.instant(of: LocalDateTime(date: day, time: start), in: zone)
            let closes = WallClock.instant(of: LocalDateTime(date: end <= start ? day.adding(days: 1) : day, time: end), in: zone)
            if closes > instant, closes > opens { return Interval(opens: opens, closes: closes) }
        }
        // Unreachable for a valid window (start ≠ end): some day's interval closes after `instant`.
        return Interval(opens: instant, closes: instant.addingTimeInterval(86400))
    }

    public func isOpen(at instant: Date) -> Bool {
        interval(around: instant).opens <= instant
    }

    /// The contract form: `{"start": "08:00", "end": "20:00", "time_zone": "Europe/Berlin"}`.
    public func toJSON() -> JSON {
        ["start": .string(start.description), "end": .string(end.description), "time_zone": .string(timeZone)]
    }
}

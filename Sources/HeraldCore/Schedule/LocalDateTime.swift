import HeraldCalendar

/// A calendar date with no time zone ("2026-03-29"), proleptic Gregorian.
public struct LocalDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day) else {
            return nil
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses "YYYY-MM-DD".
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int.digits(parts[0]), let month = Int.digits(parts[1]), let day = Int.digits(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    public var description: String { "\(Int.padded(year, 4))-\(Int.padded(month, 2))-\(Int.padded(day, 2))" }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01.
    public var daysSinceEpoch: Int { CivilCalendar.days(year: year, month: month, day: day) }

    /// The date `days` days after 1970-01-01.
    public init(daysSinceEpoch days: Int) {
        (year, month, day) = CivilCalendar.date(days: days)
    }

    /// The date `count` days later.
    public func adding(days count: Int) -> LocalDate { LocalDate(daysSinceEpoch: daysSinceEpoch + count) }

    /// The day of the week.
    public var weekday: Weekday {
        // 1970-01-01 was a Thursday.
        Weekday.allCases[((daysSinceEpoch % 7) + 7 + 3) % 7]
    }
}

/// A day of the week, spelled as in the JSON contract ("mon" … "sun").
public enum Weekday: String, Sendable, Hashable, CaseIterable, Comparable {
    case mon, tue, wed, thu, fri, sat, sun

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A wall-clock time of day ("09:00" or "09:00:30").
public struct LocalTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init?(hour: Int, minute: Int, second: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Parses "HH:MM" or "HH:MM:SS".
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 }),
            let hour = Int.digits(parts[0]), let minute = Int.digits(parts[1])
        else { return nil }
        let second = parts.count == 3 ? Int.digits(parts[2]) : 0
        guard let second else { return nil }
        self.init(hour: hour, minute: minute, second: second)
    }

    public var description: String {
        let base = "\(Int.padded(hour, 2)):\(Int.padded(minute, 2))"
        return second == 0 ? base : "\(base):\(Int.padded(second, 2))"
    }

    public var secondsOfDay: Int { hour * 3600 + minute * 60 + second }

    public static func < (lhs: LocalTime, rhs: LocalTime) -> Bool { lhs.secondsOfDay < rhs.secondsOfDay }
}

/// A date and wall-clock time with no time zone ("2026-03-29T02:30").
public struct LocalDateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var date: LocalDate
    public var time: LocalTime

    public init(date: LocalDate, time: LocalTime) {
        self.date = date
        self.time = time
    }

    /// Parses "YYYY-MM-DDTHH:MM" or "YYYY-MM-DDTHH:MM:SS" (no offset: the zone is given apart).
    public init?(_ text: String) {
        let parts = text.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count == 2, let date = LocalDate(String(parts[0])), let time = LocalTime(String(parts[1])) else { return nil }
        self.init(date: date, time: time)
    }

    public var description: String { "\(date)T\(time)" }

    /// Seconds since 1970-01-01T00:00 of this wall-clock reading, as if it were UTC.
    var wallSeconds: Int { date.daysSinceEpoch * 86400 + time.secondsOfDay }

    init(wallSeconds: Int) {
        let days = wallSeconds >= 0 ? wallSeconds / 86400 : (wallSeconds - 86399) / 86400
        let rest = wallSeconds - days * 86400
        self.date = LocalDate(daysSinceEpoch: days)
        self.time = LocalTime(hour: rest / 3600, minute: rest % 3600 / 60, second: rest % 60)!
    }

    public static func < (lhs: LocalDateTime, rhs: LocalDateTime) -> Bool { lhs.wallSeconds < rhs.wallSeconds }
}

extension Int {
    /// The value of a string of ASCII digits only.
    static func digits(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: Swift.max(0, width - digits.count)) + digits
    }
}

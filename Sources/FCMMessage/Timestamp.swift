import HeraldCalendar

/// RFC 3339 times, as the v1 API's `Timestamp` fields (`event_time`) take them:
/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` with a real calendar date and clock time.
public enum RFC3339 {
    /// The UTC offset in minutes when `text` is such a time (0 for `Z`); nil when it is not.
    public static func offsetMinutes(_ text: String) -> Int? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.count <= 40 else { return nil }
        let digit: (Int) -> Bool = { (0x30...0x39).contains(b[$0]) }
        guard [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18].allSatisfy(digit),
              b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x74, b[13] == 0x3A, b[16] == 0x3A else { return nil }
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + Int(b[$1] - 0x30) } }
        let (year, month, day) = (number(0..<4), number(5..<7), number(8..<10))
        // A real calendar date and clock time: the date survives a round trip through day numbers.
        guard year >= 1, (1...12).contains(month), (1...31).contains(day),
              CivilCalendar.date(days: CivilCalendar.days(year: year, month: month, day: day)) == (year, month, day),
              number(11..<13) <= 23, number(14..<16) <= 59, number(17..<19) <= 60 else { return nil }
        var i = 19
        if b[i] == 0x2E {
            i += 1
            let fractionStart = i
            while i < b.count, digit(i) { i += 1 }
            guard i > fractionStart else { return nil }
        }
        guard i < b.count else { return nil }
        if b[i] == 0x5A || b[i] == 0x7A { return i == b.count - 1 ? 0 : nil }
        guard b[i] == 0x2B || b[i] == 0x2D, b.count - i == 6, digit(i + 1), digit(i + 2), b[i + 3] == 0x3A, digit(i + 4), digit(i + 5),
              number((i + 1)..<(i + 3)) <= 23, number((i + 4)..<(i + 6)) <= 59 else { return nil }
        let minutes = number((i + 1)..<(i + 3)) * 60 + number((i + 4)..<(i + 6))
        return b[i] == 0x2D ? -minutes : minutes
    }
}

extension RFC3339 {
    /// `2026-11-21T23:47:43.123456Z`: UTC with microseconds, the shape Herald writes every time in.
    public static func utc(secondsSince1970 seconds: Double) -> String {
        utc(microsecondsSince1970: Int64((seconds * 1_000_000).rounded()))
    }

    /// The same of an exact count of microseconds (a `Double` of seconds in this century keeps
    /// only about a quarter of a microsecond: a time read back through one may name its neighbour).
    public static func utc(microsecondsSince1970 micros: Int64) -> String {
        let days = Int(micros >= 0 ? micros / 86_400_000_000 : (micros - 86_399_999_999) / 86_400_000_000)
        let microOfDay = micros - Int64(days) * 86_400_000_000
        let (year, month, day) = CivilCalendar.date(days: days)
        let second = Int(microOfDay / 1_000_000), fraction = Int(microOfDay % 1_000_000)
        // Every API answer writes its times here: the common years as bytes, at once.
        if (0...9999).contains(year) {
            return String(unsafeUninitializedCapacity: 27) { text in
                func put(_ value: Int, _ width: Int, at offset: Int) {
                    var value = value
                    for index in stride(from: offset + width - 1, through: offset, by: -1) {
                        text[index] = UInt8(48 + value % 10)
                        value /= 10
                    }
                }
                put(year, 4, at: 0); text[4] = 0x2D; put(month, 2, at: 5); text[7] = 0x2D; put(day, 2, at: 8); text[10] = 0x54
                put(second / 3600, 2, at: 11); text[13] = 0x3A; put(second / 60 % 60, 2, at: 14); text[16] = 0x3A
                put(second % 60, 2, at: 17); text[19] = 0x2E; put(fraction, 6, at: 20); text[26] = 0x5A
                return 27
            }
        }
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(second / 3600, 2)):\(pad(second / 60 % 60, 2)):\(pad(second % 60, 2)).\(pad(fraction, 6))Z"
    }
}

extension RFC3339 {
    /// Whether `text` is an RFC 3339 time PostgreSQL can keep: its UTC offset within ±15:59
    /// (RFC 3339 would allow ±23:59).
    public static func isStorable(_ text: String) -> Bool {
        offsetMinutes(text).map { abs($0) <= 15 * 60 + 59 } ?? false
    }

    /// The instant `text` names, in whole microseconds since 1970 (digits past the sixth are
    /// dropped); nil when it is not an RFC 3339 time.
    public static func microsecondsSince1970(_ text: String) -> Int64? {
        guard let offset = offsetMinutes(text) else { return nil }
        let b = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int64 { range.reduce(0) { $0 * 10 + Int64(b[$1] - 0x30) } }
        let days = Int64(CivilCalendar.days(year: Int(number(0..<4)), month: Int(number(5..<7)), day: Int(number(8..<10))))
        var micros = (days * 86_400 + number(11..<13) * 3600 + number(14..<16) * 60 + number(17..<19) - Int64(offset) * 60) * 1_000_000
        if b[19] == 0x2E {
            var i = 20, scale: Int64 = 100_000
            while i < b.count, (0x30...0x39).contains(b[i]) {
                micros += Int64(b[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
        }
        return micros
    }

    /// The instant `text` names, in seconds since 1970; nil when it is not an RFC 3339 time.
    public static func secondsSince1970(_ text: String) -> Double? {
        guard let offset = offsetMinutes(text) else { return nil }
        let b = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + Int(b[$1] - 0x30) } }
        let days = CivilCalendar.days(year: number(0..<4), month: number(5..<7), day: number(8..<10))
        var seconds = Double(days * 86_400 + number(11..<13) * 3600 + number(14..<16) * 60 + number(17..<19) - offset * 60)
        if b[19] == 0x2E {
            var i = 20, scale = 0.1
            while i < b.count, (0x30...0x39).contains(b[i]) {
                seconds += Double(b[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
        }
        return seconds
    }
}

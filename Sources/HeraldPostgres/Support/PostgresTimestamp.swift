import HeraldCalendar
import Foundation

/// Dates to and from PostgreSQL's timestamp text, by hand: Foundation's formatters are slow,
/// locale-dependent, and stop at milliseconds, while PostgreSQL keeps microseconds.
enum PostgresTimestamp {
    private static let microsPerDay: Int64 = 86_400_000_000

    /// `2026-11-21T23:47:43.123456Z`: ISO 8601, UTC, microseconds (years ≤ 0 as ` BC`).
    static func format(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let (days, microOfDay) = floorDivide(micros, microsPerDay)
        let (year, month, day) = civil(fromDays: days)
        let seconds = microOfDay / 1_000_000
        let fraction = microOfDay % 1_000_000
        var text = year > 0 ? pad(year, 4) : pad(1 - year, 4)
        text += "-" + pad(month, 2) + "-" + pad(day, 2)
        text += "T" + pad(seconds / 3600, 2) + ":" + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2)
        text += "." + pad(fraction, 6) + "Z"
        if year <= 0 { text += " BC" }
        return text
    }

    /// Reads what PostgreSQL writes for timestamptz, timestamp and date in the ISO DateStyle:
    /// `2026-11-21 23:47:43.12+05:30`, any offset (`+HH`, `+HH:MM`, `+HH:MM:SS`, `Z`), no offset
    /// (read as UTC), an optional ` BC`, and `infinity`/`-infinity` as the distant future/past.
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// `parse(_:)` on a value's bytes as libpq holds them (no copy: a row's times are read per row).
    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        // A date starts with a digit: only then is it worth asking for the two words.
        if let first = bytes.first, first == UInt8(ascii: "i") || first == UInt8(ascii: "-") {
            if bytes.elementsEqual("infinity".utf8) { return .distantFuture }
            if bytes.elementsEqual("-infinity".utf8) { return .distantPast }
        }
        var bytes = bytes
        var bc = false
        if bytes.count > 3, bytes[bytes.count - 3] == 0x20, bytes[bytes.count - 2] == 0x42, bytes[bytes.count - 1] == 0x43 {
            bc = true
            bytes = UnsafeBufferPointer(rebasing: bytes.dropLast(3))
        }
        var reader = DigitReader(bytes: bytes)
        guard var year = reader.number(minDigits: 4, maxDigits: 6), reader.expect(UInt8(ascii: "-")),
              let month = reader.number(minDigits: 2, maxDigits: 2), reader.expect(UInt8(ascii: "-")),
              let day = reader.number(minDigits: 2, maxDigits: 2),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        if bc { year = 1 - year }
        var micros: Int64 = 0
        if reader.expect(UInt8(ascii: " ")) || reader.expect(UInt8(ascii: "T")) {
            guard let hour = reader.number(minDigits: 2, maxDigits: 2), reader.expect(UInt8(ascii: ":")),
                  let minute = reader.number(minDigits: 2, maxDigits: 2), reader.expect(UInt8(ascii: ":")),
                  let second = reader.number(minDigits: 2, maxDigits: 2),
                  hour <= 24, minute < 60, second < 61
            else { return nil }
            micros = (hour * 3600 + minute * 60 + second) * 1_000_000
            if reader.expect(UInt8(ascii: ".")) {
                guard let (fraction, digits) = reader.fraction() else { return nil }
                micros += fraction * pow10(6 - digits)
            }
            if reader.expect(UInt8(ascii: "Z")) {
            } else if let sign = reader.sign() {
                guard let offsetHours = reader.number(minDigits: 2, maxDigits: 2) else { return nil }
                var offset = offsetHours * 3600
                if reader.expect(UInt8(ascii: ":")) {
                    guard let offsetMinutes = reader.number(minDigits: 2, maxDigits: 2) else { return nil }
                    offset += offsetMinutes * 60
                    if reader.expect(UInt8(ascii: ":")) {
                        guard let offsetSeconds = reader.number(minDigits: 2, maxDigits: 2) else { return nil }
                        offset += offsetSeconds
                    }
                }
                micros -= sign * offset * 1_000_000
            }
        }
        guard reader.atEnd else { return nil }
        let total = days(fromCivil: year, month, day) * microsPerDay + micros
        return Date(timeIntervalSince1970: Double(total) / 1_000_000)
    }

    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        Int64(CivilCalendar.days(year: Int(year), month: Int(month), day: Int(day)))
    }

    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let date = CivilCalendar.date(days: Int(days))
        return (Int64(date.year), Int64(date.month), Int64(date.day))
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    private static func pow10(_ n: Int) -> Int64 {
        var value: Int64 = 1
        for _ in 0..<max(n, 0) { value *= 10 }
        return value
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

/// A cursor over ASCII digits and punctuation.
private struct DigitReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    var atEnd: Bool { index == bytes.count }

    mutating func expect(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func sign() -> Int64? {
        if expect(UInt8(ascii: "+")) { return 1 }
        if expect(UInt8(ascii: "-")) { return -1 }
        return nil
    }

    mutating func number(minDigits: Int, maxDigits: Int) -> Int64? {
        var value: Int64 = 0
        var count = 0
        while index < bytes.count, count < maxDigits, (48...57).contains(bytes[index]) {
            value = value * 10 + Int64(bytes[index] - 48)
            index += 1
            count += 1
        }
        return count >= minDigits ? value : nil
    }

    /// Up to six digits count; further digits (beyond microseconds) are read and dropped.
    mutating func fraction() -> (Int64, Int)? {
        let start = index
        guard let value = number(minDigits: 1, maxDigits: 6) else { return nil }
        let digits = index - start
        while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
        return (value, digits)
    }
}

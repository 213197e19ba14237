import Foundation
import HeraldSync

/// Dates and times in a language other than English, through Foundation's formatters and CLDR's
/// patterns: Persian in the Solar Hijri calendar with Persian digits, and the Gregorian date beside
/// it so a Persian reader and a colleague abroad name the same day. (English keeps the pages' one
/// hand-written format, `Localized.dateTime`.)
final class DateTexts: Sendable {
    /// The formatters of one language, configured once; a formatter is used under its lock only.
    struct Formatters {
        /// Weekday, day, month, year and 24-hour time, in the language's calendar.
        let dateTime: DateFormatter
        /// Day, month and year in the language's calendar.
        let date: DateFormatter
        /// Day, month and year in the Gregorian calendar, shown beside a Solar Hijri date.
        let gregorian: DateFormatter
        /// 24-hour time.
        let time: DateFormatter
    }

    let formatters: [Language: Locked<Formatters>]

    init() {
        var formatters: [Language: Locked<Formatters>] = [:]
        for language in Language.allCases {
            func formatter(_ template: String, calendar: Calendar.Identifier) -> DateFormatter {
                let formatter = DateFormatter()
                var calendarValue = Calendar(identifier: calendar)
                calendarValue.locale = language.locale
                formatter.calendar = calendarValue
                formatter.locale = language.locale
                formatter.setLocalizedDateFormatFromTemplate(template)
                return formatter
            }
            formatters[language] = Locked(Formatters(
                dateTime: formatter("EEEdMMMyHHmm", calendar: language.calendar),
                date: formatter("dMMMMy", calendar: language.calendar),
                gregorian: formatter("dMMMy", calendar: .gregorian),
                time: formatter("HHmm", calendar: .gregorian)))
        }
        // "۱ فروردین ۱۴۰۶، ۰۹:۳۰": Persian writers put the time after the date with an Arabic comma.
        formatters[.fa]?.withLock { $0.dateTime.dateFormat = "EEEE d MMMM y، HH:mm" }
        // A schedule's time of day reads as the pages write it everywhere: 24-hour, two digits.
        for language in Language.allCases { formatters[language]?.withLock { $0.time.dateFormat = "HH:mm" } }
        self.formatters = formatters
    }

    static let shared = DateTexts()

    /// "یکشنبه ۱ فروردین ۱۴۰۶، ۰۹:۳۰ (۲۱ مارس ۲۰۲۷) ‪Asia/Tehran‬", "CN, 21 thg 3, 2027 09:30 Asia/Tehran".
    func dateTime(_ date: Date, in zone: TimeZone, zoneName: String, language: Language) -> String {
        formatters[language]!.withLock { formatters in
            formatters.dateTime.timeZone = zone
            var text = formatters.dateTime.string(from: date)
            if language.calendar != .gregorian {
                formatters.gregorian.timeZone = zone
                text += " (\(formatters.gregorian.string(from: date)))"
            }
            // The zone's name is Latin: an isolate keeps it from reordering the sentence around it.
            return text + " \u{2068}\(zoneName)\u{2069}"
        }
    }

    /// A calendar day ("2026-05-01") in the language's calendar, with the Gregorian beside a Solar Hijri one.
    func day(year: Int, month: Int, day: Int, language: Language) -> String? {
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = .gmt
        guard let date = gregorian.date(from: DateComponents(year: year, month: month, day: day, hour: 12)) else { return nil }
        return formatters[language]!.withLock { formatters in
            formatters.date.timeZone = .gmt
            formatters.gregorian.timeZone = .gmt
            let text = formatters.date.string(from: date)
            return language.calendar == .gregorian ? text : "\(text) (\(formatters.gregorian.string(from: date)))"
        }
    }

    /// A time of day ("09:30") in the language's digits.
    func time(hour: Int, minute: Int, language: Language) -> String? {
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = .gmt
        guard let date = gregorian.date(from: DateComponents(year: 2000, month: 1, day: 1, hour: hour, minute: minute)) else { return nil }
        return formatters[language]!.withLock { formatters in
            formatters.time.timeZone = .gmt
            return formatters.time.string(from: date)
        }
    }

    /// The language's short weekday names, Sunday first (as `Calendar.weekday` counts).
    func weekdays(_ language: Language) -> [String] {
        formatters[language]!.withLock { $0.dateTime.shortWeekdaySymbols }
    }
}

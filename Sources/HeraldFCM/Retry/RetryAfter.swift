import HeraldCalendar

/// The `Retry-After` header (RFC 9110 §10.2.3): a number of seconds or an HTTP-date.
public enum RetryAfter {
    /// The wait the header asks for, measured from `now`; nil for a value that is neither form.
    /// A date in the past means no wait.
    public static func parse(_ value: String, now: UnixTime) -> Duration? {
        let text = value.trimmingSpaces()
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let seconds = Int(text) else { return .seconds(Int(Int32.max)) }  // absurdly long: wait "forever"
            return .seconds(seconds)
        }
        guard let date = parseHTTPDate(text) else { return nil }
        let wait = date.seconds - now.seconds
        return wait > 0 ? .milliseconds(Int((wait * 1000).rounded(.up))) : .zero
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Parses the three forms RFC 9110 §5.6.7 requires a recipient to accept:
    /// "Sun, 06 Nov 1994 08:49:37 GMT" (IMF-fixdate), "Sunday, 06-Nov-94 08:49:37 GMT" (RFC 850)
    /// and "Sun Nov  6 08:49:37 1994" (asctime).
    public static func parseHTTPDate(_ text: String) -> UnixTime? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map { $0.lowercased() }
        guard tokens.count >= 5 else { return nil }
        let day: Int?, month: Int?, year: Int?, time: String
        if let asctimeMonth = months.firstIndex(of: tokens[1]) {
            guard tokens.count == 5 else { return nil }
            (month, day, time, year) = (asctimeMonth + 1, Int(tokens[2]), tokens[3], Int(tokens[4]))
        } else {
            guard tokens.count == 6, tokens[5] == "gmt" else { return nil }
            day = Int(tokens[1])
            month = months.firstIndex(of: tokens[2]).map { $0 + 1 }
            time = tokens[4]
            if let short = Int(tokens[3]), tokens[3].count == 2 {
                year = short < 70 ? 2000 + short : 1900 + short
            } else {
                year = tokens[3].count == 4 ? Int(tokens[3]) : nil
            }
        }
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard let day, let month, let year, clock.count == 3, (1...31).contains(day),
              (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2]) else { return nil }
        let days = CivilCalendar.days(year: year, month: month, day: day)
        return UnixTime(seconds: Double(days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]))
    }

}

extension String {
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}

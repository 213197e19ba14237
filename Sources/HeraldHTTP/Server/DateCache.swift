import Glibc

/// The `Date` header value (IMF-fixdate, RFC 9110 §5.6.7), formatted at most once per second.
/// One per event loop, so no lock is needed.
struct DateCache {
    private var second = -1
    private(set) var bytes: [UInt8] = []

    /// The current date, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    mutating func current() -> [UInt8] {
        let now = time(nil)
        if now != second {
            second = now
            bytes = Self.format(now)
        }
        return bytes
    }

    static func format(_ seconds: Int) -> [UInt8] {
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let text = "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
        return Array(text.utf8)
    }
}

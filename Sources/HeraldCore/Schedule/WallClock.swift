import Foundation

/// Converts between wall-clock readings in an IANA zone and instants, with Foundation's
/// `TimeZone` (the system's tz database).
///
/// Daylight-saving rules: a local time that does not exist (the hour skipped when clocks spring
/// forward, e.g. 02:30 on 2026-03-29 in Europe/Berlin) moves forward to the first valid instant
/// after the gap (03:00 CEST, 01:00 UTC); a local time that exists twice (the hour repeated when
/// clocks fall back) means its first occurrence (the earlier instant, still on summer time).
public enum WallClock {
    /// The instant at which clocks in `zone` read `local`.
    public static func instant(of local: LocalDateTime, in zone: TimeZone) -> Date {
        let wall = local.wallSeconds
        // The offsets in force around that reading (a day either side covers any zone's transition).
        let offsets = Set([-86400, 0, 86400].map { zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall + $0))) })
        let valid = offsets.map { wall - $0 }.filter { candidate in
            zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(candidate))) == wall - candidate
        }
        if let first = valid.min() {
            return Date(timeIntervalSince1970: Double(first))
        }
        // In a gap: the transition lies between the reading taken with the later offset and with the
        // earlier one; the first valid instant after the gap is the transition itself.
        var low = wall - (offsets.max() ?? 0)
        var high = wall - (offsets.min() ?? 0)
        let before = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(low)))
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(middle))) == before { low = middle } else { high = middle }
        }
        return Date(timeIntervalSince1970: Double(high))
    }

    /// The wall-clock reading in `zone` at `instant` (whole seconds, rounded down).
    public static func local(at instant: Date, in zone: TimeZone) -> LocalDateTime {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down))
        return LocalDateTime(wallSeconds: seconds + zone.secondsFromGMT(for: instant))
    }
}

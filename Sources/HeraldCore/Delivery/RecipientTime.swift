import Foundation
import HeraldJSON

/// "At 09:00 in each recipient's time zone": the schedule's local date and time read in each
/// device's own zone (the schedule's zone for a device that has none), so a run goes out in waves,
/// one per zone, each at the same wall-clock time there. `WallClock` makes each wave right across
/// daylight-saving changes (09:00 in Berlin on the spring change day is 07:00 UTC, the day before
/// 08:00 UTC).
///
/// A run starts with the first wave anywhere, when the time comes in the zone furthest ahead of
/// UTC (+14:00), and its last wave can come in the zone furthest behind (−12:00).
public struct RecipientTime: Sendable, Equatable {
    /// What happens to a device whose local time had already passed when its run started (a
    /// campaign scheduled late in the day, or sent after a pause in planning).
    public enum PastPolicy: String, Sendable, CaseIterable {
        /// It gets nothing; its delivery is reported expired.
        case skip
        /// It gets the message at once.
        case send
    }

    public var past: PastPolicy
    /// For topics and conditions: the zones to send a wave in, through their time-zone topics;
    /// nil sends in every zone a registered device has. Devices carry their own zone.
    public var timeZones: [String]?

    public static let maximumTimeZones = 100

    public init(past: PastPolicy = .skip, timeZones: [String]? = nil) {
        self.past = past
        self.timeZones = timeZones
    }

    /// The zones furthest ahead of and behind UTC (the Line Islands and Baker Island); every
    /// device's wave falls between their two readings of the schedule's time.
    static let earliestZone = "Etc/GMT-14"
    static let latestZone = "Etc/GMT+12"

    /// The schedule as the run starter follows it: its local times read where they come first.
    public static func firstWaves(of schedule: Schedule) -> Schedule {
        switch schedule {
        case .now: .now
        case .once(let at, _): .once(at: at, timeZone: earliestZone)
        case .daily(let time, _, let until): .daily(at: time, timeZone: earliestZone, until: until)
        case .weekly(let days, let time, _, let until): .weekly(on: days, at: time, timeZone: earliestZone, until: until)
        }
    }

    /// When the last wave of a one-off comes (its time in the zone furthest behind); nil for other schedules.
    public static func lastWave(of schedule: Schedule) -> Date? {
        guard case .once(let at, _) = schedule, let zone = TimeZone(identifier: latestZone) else { return nil }
        return WallClock.instant(of: at, in: zone)
    }

    /// The first and the last wave of the run that starts at `firstRun`: among `timeZones` when
    /// they are listed (topics and conditions), else anywhere (the zones furthest ahead of and
    /// behind UTC: devices, or every zone with a registered device).
    public static func waveSpan(of schedule: Schedule, timeZones: [String]?, firstRun: Date) -> (first: Date, last: Date) {
        let local = localTime(ofRunAt: firstRun, schedule: schedule)
        let zones = (timeZones.flatMap { $0.isEmpty ? nil : $0 } ?? [earliestZone, latestZone]).compactMap(TimeZone.init(identifier:))
        let instants = zones.map { WallClock.instant(of: local, in: $0) }
        return (instants.min() ?? firstRun, instants.max() ?? firstRun)
    }

    /// The local date and time every zone's wave of a run waits for: a one-off's own; for a
    /// recurring schedule, the reading where it came first (`firstWaves`), which is the run's occurrence.
    public static func localTime(ofRunAt occurrence: Date, schedule: Schedule) -> LocalDateTime {
        if case .once(let at, _) = schedule { return at }
        return WallClock.local(at: occurrence, in: TimeZone(identifier: earliestZone) ?? .gmt)
    }

    /// The contract form: `{"past": "skip"}`, with `"time_zones"` when listed.
    public func toJSON() -> JSON {
        var object: JSONObject = ["past": .string(past.rawValue)]
        if let timeZones { object["time_zones"] = .array(timeZones.map(JSON.string)) }
        return .object(object)
    }
}

/// Each device's wave in one run: when its message falls due and until when it may go out. Pure
/// and cheap per device: a zone's instant is worked out once and kept.
public struct RecipientWaves: Sendable {
    public enum Slot: Sendable, Equatable {
        /// Due at `at`; not sent after `expires` (the latest-delivery time counted from the wave).
        case due(at: Date, expires: Date?)
        /// Its time had passed when the run started and the policy is to skip it.
        case missed(at: Date)
    }

    let local: LocalDateTime
    let fallbackZone: TimeZone
    let policy: RecipientTime.PastPolicy
    let latestDeliveryMinutes: Int?
    let occurrence: Date
    private var instants: [String: Date] = [:]

    /// `local` in each zone; a device with no zone (or one the system does not know) gets
    /// `fallbackZone`'s wave. Waves before the run's `occurrence` (when it was due, not when a busy
    /// scheduler got to it) had passed when it started.
    public init(local: LocalDateTime, fallbackZone: String, policy: RecipientTime.PastPolicy, latestDeliveryMinutes: Int?, occurrence: Date) {
        self.local = local
        self.fallbackZone = TimeZone(identifier: fallbackZone) ?? .gmt
        self.policy = policy
        self.latestDeliveryMinutes = latestDeliveryMinutes
        self.occurrence = occurrence
    }

    /// The wave of a device in `timeZone` (an IANA identifier, or nil).
    public mutating func slot(for timeZone: String?) -> Slot {
        let key = timeZone ?? ""
        let wave: Date
        if let known = instants[key] {
            wave = known
        } else {
            wave = WallClock.instant(of: local, in: timeZone.flatMap(TimeZone.init(identifier:)) ?? fallbackZone)
            instants[key] = wave
        }
        // A second's grace for the stored occurrence's rounding: the zone whose wave starts the run is never past.
        if wave < occurrence.addingTimeInterval(-1) {
            guard policy == .send else { return .missed(at: wave) }
            return .due(at: occurrence, expires: expiry(of: occurrence))
        }
        return .due(at: wave, expires: expiry(of: wave))
    }

    func expiry(of wave: Date) -> Date? {
        latestDeliveryMinutes.map { wave.addingTimeInterval(Double($0) * 60) }
    }
}

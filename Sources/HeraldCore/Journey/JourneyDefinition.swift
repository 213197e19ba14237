import Foundation
import HeraldJSON

/// A journey as its editor wrote it: who enters and when, the steps each device walks, the goal
/// that takes it out, and the share held out to measure the journey against. A published version's
/// definition never changes (devices on it finish it as it was); an edit is a new version.
public struct JourneyDefinition: Sendable, Equatable {
    public var name: String
    public var entry: JourneyEntry
    /// The event that counts as the journey's success: it takes the device out wherever it is.
    public var goalEvent: String?
    /// The share of entrants (0 ..< 100 percent) that walk the journey and are sent nothing.
    public var holdoutPercent: Int
    public var steps: [JourneyStep]

    public init(name: String, entry: JourneyEntry, goalEvent: String? = nil, holdoutPercent: Int = 0, steps: [JourneyStep]) {
        self.name = name
        self.entry = entry
        self.goalEvent = goalEvent
        self.holdoutPercent = holdoutPercent
        self.steps = steps
    }

    /// The index of the step named `name`.
    public func index(of name: String) -> Int? { steps.firstIndex { $0.name == name } }

    /// The step after `index` when it does not say: the next in the list, or past the end (done).
    public func next(after index: Int) -> Int {
        if case .send(_, let next)? = steps[safe: index]?.kind, let next, let target = self.index(of: next) { return target }
        if case .wait(let wait)? = steps[safe: index]?.kind, let next = wait.next, let target = self.index(of: next) { return target }
        return index + 1
    }

    /// The minutes an entrant rests at the first step, when it is a wait of a set length and
    /// nothing else: the place an entry can write at once, as the machine would leave it.
    public var firstRest: Int? {
        guard case .wait(let wait)? = steps.first?.kind, wait.until == nil, wait.untilLocalTime == nil else { return nil }
        return wait.minutes
    }

    /// App events a device's progress reads (waits and branches), the goal's excluded.
    public var eventsRead: Set<String> {
        var names: Set<String> = []
        for step in steps {
            switch step.kind {
            case .wait(let wait): if case .event(let name)? = wait.until { names.insert(name) }
            case .branch(let condition, _, _): if case .event(let name) = condition { names.insert(name) }
            case .send, .exit: break
            }
        }
        return names
    }

    /// Whether a step reads the device's registry record (a branch on a segment rule, a wait until
    /// a local time, and every send, which renders for it).
    public func needsDevice(at index: Int) -> Bool {
        switch steps[safe: index]?.kind {
        case .send?: true
        case .wait(let wait)?: wait.untilLocalTime != nil
        case .branch(.segment, _, _)?: true
        default: false
        }
    }

    /// Where each step of `old` lands in this version when its devices are moved: the step of the
    /// same name (a wait keeps the time it began, so the time already waited counts), or nil for
    /// a step that has no namesake (its devices stay on the old version and finish it).
    public func moves(from old: JourneyDefinition) -> [Int: Int] {
        var map: [Int: Int] = [:]
        for (index, step) in old.steps.enumerated() {
            guard let target = self.index(of: step.name) else { continue }
            map[index] = target
        }
        return map
    }
}

/// Who enters a journey, on what, and how often.
public struct JourneyEntry: Sendable, Equatable {
    public var trigger: JourneyTrigger
    /// Narrows who may enter on an event: a device outside the rule when the event arrives does not enter.
    public var segment: SegmentRule?
    public var frequency: JourneyEntryFrequency

    public init(_ trigger: JourneyTrigger, segment: SegmentRule? = nil, frequency: JourneyEntryFrequency = .once) {
        self.trigger = trigger
        self.segment = segment
        self.frequency = frequency
    }

    public init(event: String, segment: SegmentRule? = nil, frequency: JourneyEntryFrequency = .once) {
        self.init(.event(event), segment: segment, frequency: frequency)
    }

    /// The app event that starts it, when an event does.
    public var event: String? {
        if case .event(let name) = trigger { name } else { nil }
    }

    /// Whether coming to match a segment starts it.
    public var isJoining: Bool {
        if case .joins = trigger { true } else { false }
    }

    /// The date entry, when a date property starts it.
    public var date: JourneyDateEntry? {
        if case .date(let entry) = trigger { entry } else { nil }
    }
}

/// What starts a journey for a device.
public enum JourneyTrigger: Sendable, Equatable {
    /// The app event, reported for the device.
    case event(String)
    /// The device comes to match the rule as it is registered, updated or imported (a device
    /// that matched before and is in the journey, or was, is held by the frequency as for an event).
    case joins(SegmentRule)
    /// A date the device's property holds comes due (shifted by some days, at a time of day in
    /// the device's zone).
    case date(JourneyDateEntry)
}

/// An entry when a date property comes due: `renewal_date` minus 3 days at 10:00 in the device's
/// time zone (UTC without one). The property holds a date, "2027-03-14", or a time whose date is
/// taken as written ("2027-03-14T08:00:00Z"); anything else never comes due. A moment already past
/// when the journey is published, or the property is set, starts nothing; a new date set later
/// comes due again as the frequency allows.
public struct JourneyDateEntry: Sendable, Equatable {
    public var property: String
    public var offsetDays: Int
    public var at: LocalTime

    public static let maximumOffsetDays = 3650

    public init(property: String, offsetDays: Int = 0, at: LocalTime) {
        self.property = property
        self.offsetDays = offsetDays
        self.at = at
    }
}

/// How often one device may enter. A device is in a journey once at a time: an event while it
/// is still in it starts nothing.
public enum JourneyEntryFrequency: Sendable, Equatable {
    /// Once ever.
    case once
    /// Again once `days` have passed since it last entered (and it has left).
    case oncePerDays(Int)
    /// Every time the event arrives while it is not in the journey.
    case everyTime

    /// The days between entries: nil never again, 0 at once.
    public var reentryDays: Int? {
        switch self {
        case .once: nil
        case .oncePerDays(let days): days
        case .everyTime: 0
        }
    }
}

/// One step of a journey, named so that branches and moves can point at it.
public struct JourneyStep: Sendable, Equatable {
    public var name: String
    public var kind: Kind

    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }

    public enum Kind: Sendable, Equatable {
        /// A message written like a campaign's (variants, personalisation, translations, category
        /// or transactional), sent to the device through the engine; then `next`, or the next step.
        case send(CampaignSpec, next: String?)
        case wait(JourneyWait)
        /// On to `then` when the condition holds, else to `otherwise`.
        case branch(JourneyCondition, then: String, otherwise: String)
        case exit
    }

    public var typeName: String {
        switch kind {
        case .send: "send"
        case .wait: "wait"
        case .branch: "branch"
        case .exit: "exit"
        }
    }
}

/// How long a device rests at a wait step: a duration, until a time of day in its own zone, or
/// until something happens (with a timeout). Whichever comes first ends it; then `next`, or the
/// next step.
public struct JourneyWait: Sendable, Equatable {
    public var minutes: Int?
    public var untilLocalTime: LocalTime?
    /// Ends the wait early; with it, `minutes` is the timeout.
    public var until: JourneyCondition?
    public var next: String?

    public init(minutes: Int? = nil, untilLocalTime: LocalTime? = nil, until: JourneyCondition? = nil, next: String? = nil) {
        self.minutes = minutes
        self.untilLocalTime = untilLocalTime
        self.until = until
        self.next = next
    }

    /// When the wait that began at `since` is over by time alone, for a device in `timeZone`
    /// (a device without a zone, or with an unknown one, keeps UTC).
    public func due(since: Date, timeZone: String?) -> Date {
        if let minutes { return since.addingTimeInterval(Double(minutes) * 60) }
        if let time = untilLocalTime {
            let zone = timeZone.flatMap { TimeZone(identifier: $0) } != nil ? timeZone! : "UTC"
            return Schedule.daily(at: time, timeZone: zone, until: nil).nextOccurrence(after: since) ?? since
        }
        return since
    }
}

/// What a wait listens for, or a branch asks.
public enum JourneyCondition: Sendable, Equatable {
    /// The device reported this app event since it entered the journey.
    case event(String)
    /// The device opened the last message the journey sent it (reported as an `open` event).
    case opened
    /// The device converted on the last message the journey sent it.
    case converted
    /// The device matches this rule now (branches only).
    case segment(SegmentRule)
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

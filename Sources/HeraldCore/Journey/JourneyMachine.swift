import Foundation

/// Where a device is in a journey: the step it is at, since when, and the last send step it
/// was sent (what "opened" and "converted" ask about). A few bytes a device, kept per journey.
public struct JourneyPlace: Sendable, Equatable {
    public var step: Int
    /// When it reached the step (a wait counts from it).
    public var since: Date
    public var lastSend: Int?

    public init(step: Int, since: Date, lastSend: Int? = nil) {
        self.step = step
        self.since = since
        self.lastSend = lastSend
    }
}

/// What a device's progress reads, gathered for a batch of devices before it moves them.
public struct JourneyFacts: Sendable {
    /// App events the device reported since it entered, of those the journey reads.
    public var events: Set<String>
    /// Whether it opened, converted on, the last message the journey sent it.
    public var opened: Bool
    public var converted: Bool
    /// The registry's record (nil: the device is gone, or no step read it).
    public var device: Device?
    public var daysSinceSeen: Double

    public init(events: Set<String> = [], opened: Bool = false, converted: Bool = false, device: Device? = nil, daysSinceSeen: Double = 0) {
        self.events = events
        self.opened = opened
        self.converted = converted
        self.device = device
        self.daysSinceSeen = daysSinceSeen
    }
}

/// A device's walk through a journey's steps, with no I/O: from its place and what is known of
/// it, the sends it is due and where it rests next. The store moves it and the engine sends.
public enum JourneyMachine {
    /// What one advance comes to.
    public struct Advance: Sendable, Equatable {
        /// The send steps it reached, in order (a device in the holdout reaches them and is sent nothing).
        public var sends: [Int] = []
        /// Every step it reached or passed, in order, the one it rests at included.
        public var reached: [Int] = []
        public var end: End

        public enum End: Sendable, Equatable {
            /// It rests at a wait until `due` (or until what the wait listens for happens).
            case waiting(JourneyPlace, due: Date)
            /// It left: an exit step, or past the last step.
            case completed(lastSend: Int?)
        }
    }

    /// The most steps one advance walks: a journey goes forward, so at most its length.
    static func limit(_ definition: JourneyDefinition) -> Int { definition.steps.count + 1 }

    /// Advances the device at `place` at `now`. A wait whose time is up goes on from when it was
    /// due (so that chained waits keep their times when the engine runs late); one ended by what
    /// it listened for goes on from `now`.
    public static func advance(_ definition: JourneyDefinition, from place: JourneyPlace, facts: JourneyFacts, now: Date) -> Advance {
        var step = place.step, since = place.since, lastSend = place.lastSend
        var result = Advance(end: .completed(lastSend: lastSend))
        var sentNow = false
        for _ in 0..<limit(definition) {
            guard step < definition.steps.count else { break }
            if result.reached.last != step { result.reached.append(step) }
            switch definition.steps[step].kind {
            case .send:
                result.sends.append(step)
                lastSend = step
                sentNow = true
                step = definition.next(after: step)
                since = now
            case .wait(let wait):
                let due = wait.due(since: since, timeZone: facts.device?.timeZone)
                if let until = wait.until, holds(until, facts: facts, sentNow: sentNow) {
                    step = definition.next(after: step)
                    since = now
                } else if due <= now {
                    step = definition.next(after: step)
                    since = due
                } else {
                    result.end = .waiting(JourneyPlace(step: step, since: since, lastSend: lastSend), due: due)
                    return result
                }
            case .branch(let condition, let then, let otherwise):
                step = definition.index(of: holds(condition, facts: facts, sentNow: sentNow) ? then : otherwise) ?? definition.steps.count
            case .exit:
                result.end = .completed(lastSend: lastSend)
                return result
            }
        }
        result.end = .completed(lastSend: lastSend)
        return result
    }

    /// Whether `condition` holds for the device. A message sent in this same advance has not been
    /// opened or converted on yet, whatever was said of the one before it.
    static func holds(_ condition: JourneyCondition, facts: JourneyFacts, sentNow: Bool) -> Bool {
        switch condition {
        case .event(let name): facts.events.contains(name)
        case .opened: !sentNow && facts.opened
        case .converted: !sentNow && facts.converted
        case .segment(let rule): facts.device.map { rule.matches($0, daysSinceSeen: facts.daysSinceSeen) } ?? false
        }
    }

    /// What a device resting at `step` waits to hear of, so that it is woken when it happens: an
    /// event's name, or `opened`/`converted` for the last message's.
    public static func listensFor(_ definition: JourneyDefinition, at step: Int) -> String? {
        guard case .wait(let wait)? = definition.steps[safe: step]?.kind, let until = wait.until else { return nil }
        switch until {
        case .event(let name): return name
        case .opened: return "opened"
        case .converted: return "converted"
        case .segment: return nil
        }
    }

    /// Whether the device `token` is in the journey's holdout: a stable share of its devices.
    public static func isHeldOut(_ token: String, journeyID: String, percent: Int) -> Bool {
        percent > 0 && DevicePlanner.bucket(of: token, campaignID: "journey:" + journeyID) < percent * DevicePlanner.buckets / 100
    }
}

/// A journey's id: a UUID in canonical lowercase text.
public struct JourneyID: UUIDIdentifier {
    public let description: String

    public init?(_ text: some StringProtocol) {
        guard let canonical = UUIDText.canonical(text) else { return nil }
        description = canonical
    }
}

/// Where a journey is: being written, taking entrants and moving them, paused (no entries, no
/// sends, waits kept), or stopped for everyone.
public enum JourneyStatus: String, Sendable, CaseIterable {
    case draft, live, paused, stopped
}

/// Where a device's place in a journey stands.
public enum JourneyPlaceStatus: String, Sendable, CaseIterable {
    /// Walking the steps (resting at a wait, or due to move).
    case active
    /// Left by an exit step or past the last step.
    case completed
    /// Left on the goal event.
    case goal
    /// Left when the journey was stopped.
    case stopped
    /// Left because the device is no longer registered (invalid, forgotten).
    case gone
}

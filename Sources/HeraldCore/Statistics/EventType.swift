/// What an app reports a person did: opened a message (or the app), or converted.
public enum EventType: String, Sendable, CaseIterable {
    case open, conversion
}

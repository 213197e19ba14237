/// What makes a webhook endpoint acceptable, checked before it is stored. Pure, so the API and the
/// page refuse the same things with the same words.
public enum WebhookEndpointRules {
    public static let maxURLLength = 2000
    public static let maxDescriptionLength = 200

    /// The first problem with `url`, or nil. Only absolute http(s) URLs with a host and no
    /// credentials in them: a receiver authenticates Herald by the signature, not by a password
    /// that would show in logs.
    public static func problem(url: String) -> String? {
        guard url.unicodeScalars.count <= maxURLLength else { return "must be at most \(maxURLLength) characters" }
        let lower = url.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lower.hasPrefix($0) }) else {
            return "must start with https:// (or http://)"
        }
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            return "must not contain spaces or control characters"
        }
        let rest = url.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return "must not contain a user name or password" }
        let host = authority.hasPrefix("[") ? String(authority.prefix { $0 != "]" }.dropFirst())
                                            : String(authority.prefix { $0 != ":" })
        guard !host.isEmpty else { return "must name a host" }
        guard !url.contains("#") else { return "must not contain a fragment (#…)" }
        return nil
    }

    /// The first problem with the chosen events, or nil.
    public static func problem(events: [String]) -> String? {
        guard !events.isEmpty else { return "must name at least one event" }
        if let unknown = events.first(where: { WebhookEventType(rawValue: $0) == nil }) {
            return "has an unknown event “\(unknown)”; the events are \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))"
        }
        return nil
    }
}

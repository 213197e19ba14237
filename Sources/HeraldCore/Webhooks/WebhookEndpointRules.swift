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
        guard !authority.prefix(while: { $0 != ":" }).isEmpty else { return "must name a host" }
        guard !url.contains("#") else { return "must not contain a fragment (#…)" }
        // The whole shape, as the API document's pattern says it.
        guard (try? shape.wholeMatch(in: url)) != nil else {
            return "must be https://host[:port][/path][?query], the host in ASCII letters, digits, dots and dashes "
                + "(an international name as punycode, no IPv6 literal)"
        }
        return nil
    }

    /// The API document's `url` pattern (Public/openapi.json, `createWebhook`).
    nonisolated(unsafe) private static let shape = #/[hH][tT][tT][pP][sS]?://[A-Za-z0-9._~!$&'()*+,;=%\-]+(:[0-9]{1,5})?([/?][^\x00-\x20\x7F#]*)?/#
        .matchingSemantics(.unicodeScalar)

    /// The first problem with the chosen events, or nil.
    public static func problem(events: [String]) -> String? {
        guard !events.isEmpty else { return "must name at least one event" }
        if let unknown = events.first(where: { WebhookEventType(rawValue: $0) == nil }) {
            return "has an unknown event “\(unknown)”; the events are \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))"
        }
        return nil
    }
}

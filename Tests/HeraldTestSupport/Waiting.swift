import Foundation
import HeraldJSON

/// Polls `condition` every 50 ms until it holds or `timeout` passes; returns whether it held.
public func eventually(timeout: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}

/// A campaign to `topics` with a one-off schedule or none.
public func campaignJSON(name: String, topics: [String], schedule: JSON? = nil) -> JSON {
    var object: JSONObject = ["name": .string(name), "notification": ["title": .string(name), "body": "Hello from Herald"],
                              "topics": .array(topics.map { .string($0) })]
    if let schedule { object["schedule"] = schedule }
    return .object(object)
}

/// "YYYY-MM-DDTHH:MM:SS" of `date` in UTC, for a one-off schedule in the "UTC" zone.
public func utcLocal(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
    return formatter.string(from: date)
}

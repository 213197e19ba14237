import Foundation
import HeraldJSON

/// How long a test waits for what normally takes a second or two before it calls it lost: a guard
/// against hanging, never an expectation, so far above the normal time that a busy machine (load 16
/// on 2 cores) does not reach it.
public let waitingLimit: Duration = .seconds(120)

/// Polls `condition` every 50 ms until it holds or `timeout` passes; returns whether it held.
public func eventually(timeout: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
        if try await condition() { return true }
        // The poll's pace: what a test waits for here offers no hook of its own.
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

import HeraldCalendar
import HeraldFCM
import HeraldJSON

/// How the emulator says its accepted messages fared on Android devices, for the FCM Data API's
/// `messageOutcomePercents`. Each message draws one outcome by these shares (the rest, delivered).
public struct DeliveryShares: Sendable, Equatable {
    public var pending = 0.04
    public var collapsed = 0.01
    public var droppedTooManyPendingMessages = 0.02
    public var droppedAppForceStopped = 0.01
    public var droppedDeviceInactive = 0.02
    public var droppedTtlExpired = 0.01
    /// The Data API's other objects of percents, given as they are for every row (the emulator
    /// has no devices to time or to proxy for): FCM's names, as in its answers.
    public var otherPercents: [String: [String: Double]] = [
        "deliveryPerformancePercents": ["deliveredNoDelay": 80, "delayedDeviceOffline": 10, "delayedDeviceDoze": 5,
                                        "delayedMessageThrottled": 2, "delayedUserStopped": 1],
        "messageInsightPercents": ["priorityLowered": 3],
        "proxyNotificationInsightPercents": ["proxied": 30, "failed": 1, "skippedNotThrottled": 55, "skippedOptedOut": 4,
                                             "skippedUnconfigured": 6, "skippedUnsupported": 4],
    ]

    public init() {}

    /// The Data API's names of the outcomes, in the order a draw walks them; delivered is the rest.
    static let outcomes = ["pending", "collapsed", "droppedTooManyPendingMessages", "droppedAppForceStopped", "droppedDeviceInactive",
                           "droppedTtlExpired"]

    func share(_ outcome: String) -> Double {
        switch outcome {
        case "pending": pending
        case "collapsed": collapsed
        case "droppedTooManyPendingMessages": droppedTooManyPendingMessages
        case "droppedAppForceStopped": droppedAppForceStopped
        case "droppedDeviceInactive": droppedDeviceInactive
        case "droppedTtlExpired": droppedTtlExpired
        default: 0
        }
    }
}

/// One (day, app, label) of the Data API: messages accepted, notifications among them, and each
/// outcome's count.
public struct DeliveryTally: Sendable, Equatable {
    public var accepted = 0
    public var notifications = 0
    public var outcomes: [String: Int] = [:]
}

/// The key of a tally: the UTC day ("2026-11-26"), the Android app, the analytics label ("" for none).
public struct DeliveryKey: Sendable, Hashable {
    public var day: String
    public var app: String
    public var label: String
}

extension FCMEmulator {
    /// What the emulator's Data API reports, by day, app and label.
    public func deliveryTallies() -> [DeliveryKey: DeliveryTally] { state.withLock { $0.delivery } }

    /// Counts an accepted message for the Data API: its app (by its token, else the default app),
    /// its label, and an outcome drawn by the configured shares. Called under the state's lock.
    static func tally(_ message: JSON, configuration: FCMEmulatorConfiguration, day: String, into state: inout EmulatorState) {
        let token = message["token"]?.stringValue ?? message["fid"]?.stringValue
        let app = token.flatMap { configuration.androidAppsByToken[$0] } ?? configuration.androidAppID
        let label = message["android"]?["fcm_options"]?["analytics_label"]?.stringValue
            ?? message["fcm_options"]?["analytics_label"]?.stringValue ?? ""
        let draw = Double.random(in: 0..<1, using: &state.random)
        var threshold = 0.0, outcome = "delivered"
        for candidate in DeliveryShares.outcomes {
            threshold += configuration.deliveryShares.share(candidate)
            if draw < threshold { outcome = candidate; break }
        }
        let key = DeliveryKey(day: day, app: app, label: label)
        state.delivery[key, default: DeliveryTally()].accepted += 1
        if message["notification"] != nil || message["android"]?["notification"] != nil { state.delivery[key]!.notifications += 1 }
        state.delivery[key]!.outcomes[outcome, default: 0] += 1
    }

    /// Data API calls answered so far (the failing ones included).
    public func dataAPICallCount() -> Int { state.withLock { $0.dataAPICalls } }

    /// `GET /v1beta1/projects/{project}/androidApps/{app}/deliveryData`: the tallies of one app,
    /// newest day first, as Google's `ListAndroidDeliveryDataResponse` (int64 counts as strings,
    /// percents of the messages accepted), `pageSize` rows a page with `pageToken` to go on.
    func deliveryData(_ request: EmulatorRequest, path: String, query: [String: String]) -> EmulatorAnswer {
        let call = state.withLock { state in
            state.dataAPICalls += 1
            return state.dataAPICalls
        }
        if call <= configuration.dataAPIFailingCalls {
            return .respond(call % 2 == 1
                ? .fcmError(503, "UNAVAILABLE", "The service is currently unavailable.", headers: [("Retry-After", "1")])
                : .fcmError(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Read requests'.", headers: [("Retry-After", "1")]), delay: nil)
        }
        guard isAuthorised(request) else {
            return .respond(.fcmError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."), delay: nil)
        }
        let parts = path.split(separator: "/").map(String.init)  // v1beta1 projects {p} androidApps {app} deliveryData
        guard parts.count == 6, parts[1] == "projects", parts[3] == "androidApps", parts[5] == "deliveryData" else { return .respond(.fcmError(404, "NOT_FOUND", "Unknown path."), delay: nil) }
        guard parts[2] == configuration.projectID else {
            return .respond(.fcmError(403, "PERMISSION_DENIED", "Permission denied on resource 'projects/\(parts[2])'."), delay: nil)
        }
        let app = parts[4].percentDecoded
        let rows = deliveryTallies().filter { $0.key.app == app }.sorted { ($0.key.day, $0.key.label) > ($1.key.day, $1.key.label) }
        let size = max(1, min(10_000, Int(query["pageSize"] ?? "") ?? 1000))
        let start = Int(query["pageToken"] ?? "") ?? 0
        let page = rows.dropFirst(start).prefix(size)
        let items: [JSON] = page.map { key, tally in
            let date = key.day.split(separator: "-").compactMap { Int($0) }
            var outcomes = JSONObject()
            for outcome in ["delivered"] + DeliveryShares.outcomes {
                outcomes[outcome] = .number(Double(tally.outcomes[outcome] ?? 0) * 100 / Double(max(1, tally.accepted)))
            }
            var data: JSONObject = ["countMessagesAccepted": .string(String(tally.accepted)),
                                    "countNotificationsAccepted": .string(String(tally.notifications)), "messageOutcomePercents": .object(outcomes)]
            for (group, percents) in configuration.deliveryShares.otherPercents {
                data[group] = .object(JSONObject(percents.sorted { $0.key < $1.key }.map { ($0.key, JSON.number($0.value)) }))
            }
            return ["appId": .string(key.app), "analyticsLabel": .string(key.label),
                    "date": ["year": .number(Double(date[0])), "month": .number(Double(date[1])), "day": .number(Double(date[2]))],
                    "data": .object(data)]
        }
        var body: JSONObject = ["androidDeliveryData": .array(items)]
        if start + size < rows.count { body["nextPageToken"] = .string(String(start + size)) }
        return .respond(.json(200, .object(body)), delay: nil)
    }

    /// The UTC day of `time` as "YYYY-MM-DD".
    static func day(_ time: UnixTime) -> String {
        let (year, month, day) = CivilCalendar.date(days: Int((time.seconds / 86_400).rounded(.down)))
        func pad(_ value: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }
}

private extension String {
    var percentDecoded: String {
        var bytes: [UInt8] = [], input = Array(utf8), index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count, let byte = UInt8(String(decoding: input[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                bytes.append(byte)
                index += 3
            } else {
                bytes.append(input[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

import Foundation
import HeraldJSON

/// `delivery` (spread, sending hours, latest-delivery time) and `auto_winner`.
extension CampaignParser {
    static let maximumPerMinute = 600_000
    static let maximumSpreadMinutes = 24 * 60
    /// FCM keeps a message at most 28 days.
    static let maximumLatestDeliveryMinutes = 28 * 24 * 60

    mutating func parseDelivery(_ object: JSONObject) -> DeliveryControls {
        guard let delivery = reader.object(object, "delivery", at: "") else { return DeliveryControls() }
        reader.rejectUnknown(delivery, known: ["max_per_minute", "spread_minutes", "latest_delivery_minutes", "window", "recipient_time",
                                                   "category", "transactional"], at: "delivery")
        var controls = DeliveryControls()
        controls.maxPerMinute = bounded(delivery, "max_per_minute", at: "delivery", 1...Self.maximumPerMinute, unit: "requests a minute")
        controls.spreadMinutes = bounded(delivery, "spread_minutes", at: "delivery", 1...Self.maximumSpreadMinutes, unit: "minutes (a day at most)")
        if controls.maxPerMinute != nil, controls.spreadMinutes != nil {
            reader.report("delivery.spread_minutes", "conflict", "choose one spread: at most max_per_minute a minute, or evenly over spread_minutes")
        }
        controls.latestDeliveryMinutes = bounded(delivery, "latest_delivery_minutes", at: "delivery",
                                                 1...Self.maximumLatestDeliveryMinutes, unit: "minutes (FCM keeps a message 28 days at most)")
        if let window = reader.object(delivery, "window", at: "delivery") {
            reader.rejectUnknown(window, known: ["start", "end", "time_zone"], at: "delivery.window")
            let start = localTime(window, "start"), end = localTime(window, "end")
            let zone = reader.string(window, "time_zone", at: "delivery.window", required: true)
            if let zone, TimeZone(identifier: zone) == nil {
                reader.report("delivery.window.time_zone", "unknown_time_zone", "\"\(zone)\" is not an IANA time zone such as Europe/Berlin")
            }
            if let start, let end, start == end {
                reader.report("delivery.window.end", "empty_window", "the window must end at another time than it starts (\(start)); leave the window out to send at any hour")
            }
            if let start, let end, let zone, TimeZone(identifier: zone) != nil, start != end {
                controls.window = SendingWindow(start: start, end: end, timeZone: zone)
            }
        }
        if let recipientTime = reader.object(delivery, "recipient_time", at: "delivery") {
            let path = "delivery.recipient_time"
            reader.rejectUnknown(recipientTime, known: ["past", "time_zones"], at: path)
            var parsed = RecipientTime(past: choice(recipientTime, "past", at: path, RecipientTime.PastPolicy.self) ?? .skip)
            if let zones = reader.strings(recipientTime, "time_zones", at: path) {
                let zonesPath = JSONReader.path(path, "time_zones")
                if zones.isEmpty || zones.count > RecipientTime.maximumTimeZones {
                    reader.report(zonesPath, "out_of_range", "list 1 to \(RecipientTime.maximumTimeZones) time zones, or leave it out for every zone a registered device has, found \(zones.count)",
                                  limit: RecipientTime.maximumTimeZones)
                }
                var seen: Set<String> = []
                for (index, zone) in zones.enumerated() {
                    if TimeZone(identifier: zone) == nil {
                        reader.report(JSONReader.path(zonesPath, index: index), "unknown_time_zone", "\"\(zone)\" is not an IANA time zone such as Asia/Tehran")
                    } else if !seen.insert(zone).inserted {
                        reader.report(JSONReader.path(zonesPath, index: index), "duplicate", "\(zone) is listed twice")
                    }
                }
                parsed.timeZones = zones
            }
            controls.recipientTime = parsed
        }
        if let category = reader.string(delivery, "category", at: "delivery"), !category.isEmpty {
            if let problem = CampaignCategory.problem(category) {
                reader.report("delivery.category", "invalid_value", problem)
            } else {
                controls.category = category
            }
        }
        controls.transactional = reader.bool(delivery, "transactional", at: "delivery") ?? false
        return controls
    }

    /// Recipient time reads a wall-clock schedule in each recipient's zone: "now" has no time to
    /// read; devices carry their own zone, so a list of zones is for topics and conditions only.
    mutating func checkRecipientTime(_ spec: CampaignSpec, audienceGiven: Bool) {
        guard let recipientTime = spec.delivery.recipientTime else { return }
        if spec.audience.isPerDevice, recipientTime.timeZones != nil {
            reader.report("delivery.recipient_time.time_zones", "not_for_devices",
                          "each device is sent at its own time zone; time_zones is for topics and conditions (through their time-zone topics)")
        }
        if spec.schedule == nil || spec.schedule == .now {
            reader.report("delivery.recipient_time", "needs_local_time",
                          "recipient time needs a schedule at a local time (once, daily or weekly): that time is read in each recipient's zone")
        }
    }

    mutating func parseAutoWinner(_ object: JSONObject, variants: Int, holdout: Int) -> WinnerRule? {
        guard let rule = reader.object(object, "auto_winner", at: "") else { return nil }
        let path = "auto_winner"
        reader.rejectUnknown(rule, known: ["after_minutes", "metric", "confidence", "fallback"], at: path)
        let minutes = bounded(rule, "after_minutes", at: path, 1...WinnerRule.maximumMinutes, unit: "minutes", required: true)
        let metric = choice(rule, "metric", at: path, WinnerRule.Metric.self) ?? .opens
        let fallback = choice(rule, "fallback", at: path, WinnerRule.Fallback.self) ?? .baseline
        var confidence = 95
        if let value = reader.int(rule, "confidence", at: path) {
            if WinnerRule.confidences.contains(value) {
                confidence = value
            } else {
                reader.report("auto_winner.confidence", "invalid_value",
                              "confidence is one of \(WinnerRule.confidences.map { "\($0)" }.joined(separator: ", ")) percent, found \(value)")
            }
        }
        if journeyStep, variants < 2 {
            reader.report(path, "needs_ab_test", "an automatic winner needs at least two variants: it picks one of them for the devices that come later")
        } else if !journeyStep, variants < 2 || holdout == 0 {
            reader.report(path, "needs_ab_test_with_holdout",
                          "an automatic winner needs at least two variants and a holdout_percent above 0: the winner goes to the holdout")
        }
        return minutes.map { WinnerRule(afterMinutes: $0, metric: metric, confidence: confidence, fallback: fallback) }
    }

    mutating func bounded(_ object: JSONObject, _ key: String, at parent: String, _ range: ClosedRange<Int>, unit: String,
                          required: Bool = false) -> Int? {
        guard let value = reader.int(object, key, at: parent, required: required) else { return nil }
        guard range.contains(value) else {
            reader.report(JSONReader.path(parent, key), "out_of_range", "must be \(range.lowerBound) to \(range.upperBound) \(unit), found \(value)",
                          limit: range.upperBound)
            return nil
        }
        return value
    }

    mutating func choice<T: RawRepresentable & CaseIterable>(_ object: JSONObject, _ key: String, at parent: String, _ type: T.Type) -> T?
        where T.RawValue == String {
        guard let text = reader.string(object, key, at: parent) else { return nil }
        guard let value = T(rawValue: text) else {
            reader.report(JSONReader.path(parent, key), "invalid_value",
                          "\(key) is one of \(T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), found \"\(text)\"")
            return nil
        }
        return value
    }

    mutating func localTime(_ object: JSONObject, _ key: String) -> LocalTime? {
        guard let text = reader.string(object, key, at: "delivery.window", required: true) else { return nil }
        guard let time = LocalTime(text) else {
            reader.report("delivery.window.\(key)", "invalid_time", "a local time such as 08:00, found \"\(text)\"")
            return nil
        }
        return time
    }
}

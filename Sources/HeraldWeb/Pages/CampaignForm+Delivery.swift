import HeraldCore
import HeraldJSON

/// The composer's delivery controls and automatic winner: the contract's `delivery` and
/// `auto_winner` as form fields (blank fields are left out; the parser judges the rest).
struct DeliveryFormFields: Sendable, Equatable {
    var maxPerMinute = "", spreadMinutes = "", latestDeliveryMinutes = ""
    var windowStart = "", windowEnd = "", windowTimeZone = ""
    /// "" (the schedule's zone), or recipient time's past policy ("skip", "send").
    var recipientTime = ""
    /// Recipient time's zones for topics and conditions, separated by commas ("": every zone).
    var recipientTimeZones = ""
    var winnerAfterMinutes = "", winnerMetric = "opens", winnerConfidence = "95", winnerFallback = "baseline"
    /// The campaign's category ("" for none), and whether it is transactional (a checkbox).
    var category = "", transactional = false

    /// The form fields and the contract paths they stand for.
    static let fields: [(field: String, path: String)] = [
        ("max_per_minute", "delivery.max_per_minute"), ("spread_minutes", "delivery.spread_minutes"),
        ("latest_delivery_minutes", "delivery.latest_delivery_minutes"),
        ("window_start", "delivery.window.start"), ("window_end", "delivery.window.end"), ("window_time_zone", "delivery.window.time_zone"),
        ("recipient_time", "delivery.recipient_time"), ("recipient_time", "delivery.recipient_time.past"),
        ("recipient_time_zones", "delivery.recipient_time.time_zones"),
        ("winner_after_minutes", "auto_winner.after_minutes"), ("winner_metric", "auto_winner.metric"),
        ("winner_confidence", "auto_winner.confidence"), ("winner_fallback", "auto_winner.fallback"),
        ("category", "delivery.category"), ("transactional", "delivery.transactional"),
    ]

    init() {}

    init(_ value: (String) -> String) {
        maxPerMinute = value("max_per_minute"); spreadMinutes = value("spread_minutes"); latestDeliveryMinutes = value("latest_delivery_minutes")
        windowStart = value("window_start"); windowEnd = value("window_end"); windowTimeZone = value("window_time_zone")
        recipientTime = value("recipient_time")
        recipientTimeZones = value("recipient_time_zones")
        winnerAfterMinutes = value("winner_after_minutes")
        winnerMetric = value("winner_metric").isEmpty ? "opens" : value("winner_metric")
        winnerConfidence = value("winner_confidence").isEmpty ? "95" : value("winner_confidence")
        winnerFallback = value("winner_fallback").isEmpty ? "baseline" : value("winner_fallback")
        category = value("category"); transactional = !value("transactional").isEmpty
    }

    init(_ spec: CampaignSpec) {
        maxPerMinute = spec.delivery.maxPerMinute.map(String.init) ?? ""
        spreadMinutes = spec.delivery.spreadMinutes.map(String.init) ?? ""
        latestDeliveryMinutes = spec.delivery.latestDeliveryMinutes.map(String.init) ?? ""
        if let window = spec.delivery.window {
            windowStart = window.start.description; windowEnd = window.end.description; windowTimeZone = window.timeZone
        }
        recipientTime = spec.delivery.recipientTime?.past.rawValue ?? ""
        recipientTimeZones = spec.delivery.recipientTime?.timeZones?.joined(separator: ", ") ?? ""
        category = spec.delivery.category ?? ""; transactional = spec.delivery.transactional
        if let rule = spec.autoWinner {
            winnerAfterMinutes = String(rule.afterMinutes); winnerMetric = rule.metric.rawValue
            winnerConfidence = String(rule.confidence); winnerFallback = rule.fallback.rawValue
        }
    }

    /// Whether anything is set, so the composer shows the section open.
    var isSet: Bool {
        transactional || !(maxPerMinute + spreadMinutes + latestDeliveryMinutes + windowStart + windowEnd + recipientTime + recipientTimeZones
                           + winnerAfterMinutes + category).isEmpty
    }

    /// Adds `delivery` and `auto_winner` to the contract; a window's zone defaults to the schedule's.
    func addContract(to object: inout JSONObject, scheduleZone: String, errors: inout FormErrors) {
        var delivery = JSONObject()
        func number(_ text: String, _ field: String) -> JSON? {
            let trimmed = text.trimmingSpaces
            guard !trimmed.isEmpty else { return nil }
            guard let value = Int(trimmed) else { errors.add(field, "must be a whole number, such as 30"); return nil }
            return .number(Double(value))
        }
        delivery["max_per_minute"] = number(maxPerMinute, "max_per_minute")
        delivery["spread_minutes"] = number(spreadMinutes, "spread_minutes")
        delivery["latest_delivery_minutes"] = number(latestDeliveryMinutes, "latest_delivery_minutes")
        if !(windowStart + windowEnd).trimmingSpaces.isEmpty {
            let zone = windowTimeZone.trimmingSpaces.isEmpty ? scheduleZone : windowTimeZone
            delivery["window"] = ["start": .string(windowStart.trimmingSpaces), "end": .string(windowEnd.trimmingSpaces), "time_zone": .string(zone)]
        }
        // Zones without recipient time are kept for the parser to refuse by name, not dropped.
        let zones = recipientTimeZones.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map { JSON.string(String($0)) }
        if !recipientTime.isEmpty || !zones.isEmpty {
            var recipient: JSONObject = [:]
            if !recipientTime.isEmpty { recipient["past"] = .string(recipientTime) }
            if !zones.isEmpty { recipient["time_zones"] = .array(zones) }
            delivery["recipient_time"] = .object(recipient)
        }
        if !category.trimmingSpaces.isEmpty { delivery["category"] = .string(category.trimmingSpaces) }
        if transactional { delivery["transactional"] = true }
        if !delivery.isEmpty { object["delivery"] = .object(delivery) }
        if let minutes = number(winnerAfterMinutes, "winner_after_minutes") {
            object["auto_winner"] = ["after_minutes": minutes, "metric": .string(winnerMetric),
                                     "confidence": number(winnerConfidence, "winner_confidence") ?? 95, "fallback": .string(winnerFallback)]
        }
    }

    /// The form field of a contract path under `delivery` or `auto_winner`; nil for other paths.
    static func field(for path: String) -> String? {
        if let match = fields.first(where: { $0.path == path }) { return match.field }
        // One of the zones ("delivery.recipient_time.time_zones[2]").
        if path.hasPrefix("delivery.recipient_time.time_zones") { return "recipient_time_zones" }
        if path.hasPrefix("delivery") { return "max_per_minute" }
        if path.hasPrefix("auto_winner") { return "winner_after_minutes" }
        return nil
    }
}

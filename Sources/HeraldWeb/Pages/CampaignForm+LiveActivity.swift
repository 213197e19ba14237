import Foundation
import FCMMessage
import HeraldCore
import HeraldJSON

/// The composer's Live Activity, for the message type "Live Activity": the contract's
/// `live_activity` as form fields (the title and text above are the activity's alert), and the
/// `aps` its devices would receive, previewed from the fields as typed.
struct LiveActivityFormFields: Sendable, Equatable {
    /// "update" or "end"; anything else is the parser's to refuse by name.
    var event = "update"
    /// The content state as JSON text, as typed.
    var contentState = ""
    /// An RFC 3339 time, for "end" only ("" for none).
    var dismissalDate = ""

    /// The form fields and the contract paths they stand for.
    static let fields: [(field: String, path: String)] = [
        ("live_activity_event", "live_activity.event"), ("live_activity_state", "live_activity.content_state"),
        ("live_activity_dismissal", "live_activity.dismissal_date"),
    ]

    init() {}

    init(_ value: (String) -> String) {
        event = value("live_activity_event").isEmpty ? "update" : value("live_activity_event")
        contentState = value("live_activity_state").replacingOccurrences(of: "\r\n", with: "\n")
        dismissalDate = value("live_activity_dismissal")
    }

    init(_ activity: LiveActivity) {
        event = activity.event.rawValue
        contentState = JSON.object(activity.contentState).prettyString()
        dismissalDate = activity.dismissalDate.map { Self.dateText($0) } ?? ""
    }

    /// A dismissal date as the field shows it: whole seconds in UTC ("2026-11-27T18:00:00Z").
    static func dateText(_ date: Date) -> String {
        String(RFC3339.utc(secondsSince1970: date.timeIntervalSince1970).prefix(19)) + "Z"
    }

    /// Adds `live_activity` to the contract: the content state must be JSON (the parser judges the rest).
    func addContract(to object: inout JSONObject, errors: inout FormErrors, words: Localized) {
        var activity: JSONObject = ["event": .string(event)]
        if !contentState.trimmingSpaces.isEmpty {
            do {
                activity["content_state"] = try JSON.parse(contentState)
            } catch {
                errors.add("live_activity_state", words.text("composer.error.not_json", error.reason, words.number(error.line), words.number(error.column)))
                activity["content_state"] = .object([:])
            }
        }
        if !dismissalDate.trimmingSpaces.isEmpty { activity["dismissal_date"] = .string(dismissalDate.trimmingSpaces) }
        object["live_activity"] = .object(activity)
    }

    /// The form field of a contract path under `live_activity` (the path itself, a Live Activity
    /// sent to topics, belongs to the message type); nil for other paths.
    static func field(for path: String) -> String? {
        if path == "live_activity" { return "message_kind" }
        if path.hasPrefix("live_activity.content_state") { return "live_activity_state" }
        return fields.first { $0.path == path }?.field
    }

    /// The `aps` a device's activity receives when sent at `now`, as pretty JSON: the alert from
    /// the title and text as typed, their variables (and the content state's) at their defaults,
    /// as the review shows them without a sample device. Nil until the content state is a JSON object.
    func apsPreview(title: String, body: String, sound: String, now: Date) -> String? {
        guard case .object(let state)? = try? JSON.parse(contentState) else { return nil }
        let dismissal = RFC3339.secondsSince1970(dismissalDate.trimmingSpaces).map { Date(timeIntervalSince1970: $0) }
        let activity = LiveActivity(event: LiveActivity.Event(rawValue: event) ?? .update, contentState: state, dismissalDate: dismissal)
        let typed = NotificationContent(title: title.isEmpty ? nil : title, body: body.isEmpty ? nil : body)
        let shown = Variant(key: "A", weight: 1, notification: typed, liveActivity: activity).withDefaults
        return JSON.object((shown.liveActivity ?? activity).aps(alert: shown.notification, sound: sound.isEmpty ? nil : sound, sendTime: now)).prettyString()
    }
}

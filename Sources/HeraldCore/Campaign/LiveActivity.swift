import FCMMessage
import Foundation
import HeraldJSON

/// A campaign that updates or ends the Live Activity of each device instead of showing a
/// notification: FCM's "Send Live Activity updates" (reference/fcm.md, fourth wave). Each device
/// with an activity token gets `apns.live_activity_token` and an `aps` of `timestamp`, `event`,
/// `content-state`, the campaign's title and text as an optional `alert`, and, for `end`, an
/// optional `dismissal-date`. FCM takes one activity token a request, so it goes to devices
/// (a segment or tokens), never to topics.
public struct LiveActivity: Sendable, Equatable {
    /// What the push does to the activity. (`start` needs a push-to-start token, which the
    /// registry does not keep.)
    public enum Event: String, Sendable, CaseIterable {
        case update, end
    }

    public var event: Event
    /// The activity's new `ContentState`, as the app's `ActivityAttributes` decode it.
    public var contentState: JSONObject
    /// When iOS removes an ended activity from the Lock Screen (`end` only); nil leaves it to iOS
    /// (up to four hours), a time already past removes it at once.
    public var dismissalDate: Date?

    public init(event: Event, contentState: JSONObject, dismissalDate: Date? = nil) {
        self.event = event
        self.contentState = contentState
        self.dismissalDate = dismissalDate
    }

    /// The `aps` an activity receives, sent at `sendTime`: the campaign's title and text (and
    /// sound) are its alert. APNs orders updates by `timestamp`, so it is the send's own time.
    public func aps(alert content: NotificationContent, sound: String?, sendTime: Date) -> JSONObject {
        var aps: JSONObject = ["timestamp": .number(Double(Int64(sendTime.timeIntervalSince1970.rounded(.down)))),
                               "event": .string(event.rawValue), "content-state": .object(contentState)]
        if content.hasText {
            var alert = JSONObject()
            if let title = content.title { alert["title"] = .string(title) }
            if let body = content.body { alert["body"] = .string(body) }
            if let sound { alert["sound"] = .string(sound) }
            aps["alert"] = .object(alert)
        }
        if event == .end, let dismissalDate {
            aps["dismissal-date"] = .number(Double(Int64(dismissalDate.timeIntervalSince1970.rounded(.down))))
        }
        return aps
    }

    /// The content state's strings, each at its path under `path` (`…content_state.player.name`).
    public func strings(at path: String) -> [(path: String, text: String)] {
        var found: [(path: String, text: String)] = []
        _ = JSON.object(contentState).mappingStrings(at: path) { path, text in
            found.append((path, text))
            return text
        }
        return found
    }

    /// Whether the content state holds variables, filled in per device as the title and text are.
    public var hasVariables: Bool { strings(at: "").contains { Variant.hasVariables($0.text) } }

    /// This activity with each string of its content state transformed (its variables filled in).
    public func mappingStrings(_ transform: (String) -> String) -> LiveActivity {
        var copy = self
        copy.contentState = JSON.object(contentState).mappingStrings(at: "") { transform($1) }.objectValue ?? contentState
        return copy
    }

    /// Why a device gets no request from a Live Activity campaign.
    public static let unreachable = "the device has no Live Activity to update: a Live Activity campaign reaches iOS devices that registered a live_activity_token"

    /// What stands in for a device's activity token where there is no device (the composer's
    /// preview, a campaign's measured size): as long as a token may be, so a message that fits
    /// with it fits with every device's.
    public static let placeholderToken = String(repeating: "0", count: DeviceLimits.liveActivityTokenCharacters)

    /// What is wrong with `token` as the activity token of a device on `platform`, or nil.
    /// (Its greatest length is checked with the device's other text lengths.)
    public static func tokenProblem(_ token: String, platform: DevicePlatform) -> String? {
        if platform != .ios {
            return "only iOS apps have Live Activities; this device's platform is \(platform.rawValue)"
        }
        let hex = token.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) || ("A"..."F").contains($0) }
        if !hex || !token.unicodeScalars.count.isMultiple(of: 2) {
            return "a Live Activity token is Apple's push token in hex (digits 0-9 and a-f, two a byte), such as ActivityKit's pushToken gives; found \"\(token.prefix(80))\""
        }
        if token.unicodeScalars.count < DeviceLimits.liveActivityTokenMinimumCharacters {
            return "a Live Activity token has at least \(DeviceLimits.liveActivityTokenMinimumCharacters) hex digits (Apple's are 64), found \(token.unicodeScalars.count)"
        }
        return nil
    }
}

extension JSON {
    /// This value with each string, at any depth, replaced by `transform(path, string)`; paths are
    /// written as `JSONReader` writes them, under `path`.
    func mappingStrings(at path: String, _ transform: (_ path: String, _ text: String) -> String) -> JSON {
        switch self {
        case .string(let text):
            .string(transform(path, text))
        case .object(let members):
            .object(JSONObject(members.map { ($0.key, $0.value.mappingStrings(at: JSONReader.path(path, $0.key), transform)) }))
        case .array(let elements):
            .array(elements.enumerated().map { $0.element.mappingStrings(at: JSONReader.path(path, index: $0.offset), transform) })
        default:
            self
        }
    }
}

import Foundation
import HeraldCore
import HeraldJSON

/// A request row the run writer inserts (`deliveries`): its values, turned into the statement's
/// columns (text arrays for `unnest`) only where they are bound.
struct RequestRow: Sendable {
    /// Whom FCM is to send it to.
    enum Target: Sendable {
        /// A device, by its token or FID (`kind` names the target's member, as the body does).
        case device(token: DeviceToken, kind: DeviceKind)
        /// A topic or condition (FCM fans it out), as the body's target object.
        case fanOut(JSON)
    }

    var variant: String
    var target: Target
    var body: String
    var status = DeliveryStatus.pending
    /// Why it is not sent (a failed or expired request): FCM's kind of code, and the words.
    var errorCode: String? = nil
    var reason: String? = nil
    /// When it falls due; nil: as soon as it is written, `delay` seconds on.
    var due: Date? = nil
    var delay: Double = 0
    /// At recipient time, its wave's moment and latest delivery.
    var sendAt: Date? = nil
    var expiresAt: Date? = nil

    /// The device's token, or nil for a fan-out.
    var token: DeviceToken? {
        if case .device(let token, _) = target { token } else { nil }
    }

    /// The target as the `target` column keeps it.
    var targetJSON: String {
        switch target {
        case .device(let token, let kind): JSON.object([kind.rawValue: .string(token.description)]).serializedString()
        case .fanOut(let json): json.serializedString()
        }
    }
}

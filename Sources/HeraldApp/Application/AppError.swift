import HeraldCore

/// Why a use case did not happen, in the application's words. Each face renders it its own way
/// (problem+json for the REST API, an error page for the browser); none of it speaks HTTP.
public enum AppError: Error, Sendable, Equatable {
    /// Nothing by that id: what was asked for, and by which id when the caller gave one.
    case notFound(Missing)
    /// The input breaks the rules; every failing field with its path, code, message and limit.
    case invalid(ValidationErrors, title: String)
    /// The caller named another version than the current one (`expectedVersion`: an older one
    /// read before someone saved, or one that never was); `currentVersion` is the one to reload.
    case versionMismatch(currentVersion: Int, expectedVersion: Int)
    /// The caller may not do this (a role or scope too low, a rule about oneself).
    case notAllowed(String)
    /// The object's state forbids it now (`code` is stable for machines).
    case conflict(code: String, title: String, detail: String, currentStatus: CampaignStatus? = nil)
    /// Well-formed, but refused as it stands (a reused idempotency key with another body).
    case refused(code: String, title: String, detail: String)
    /// Sending needs a service-account key or the emulator, and this server has neither.
    case sendingNotConfigured
    /// A dependency (the database) cannot be reached right now; nothing was changed.
    case unavailable(String)
    /// Too many attempts; try again after `retryAfterSeconds`.
    case rateLimited(String, retryAfterSeconds: Int)

    /// A single invalid field, for rules outside the campaign contract (accounts, events).
    public static func invalidField(_ path: String, _ message: String, code: String = "invalid_value",
                                    title: String = "The request is not valid") -> AppError {
        .invalid(ValidationErrors(errors: [FieldError(path: path, code: code, message: message)]), title: title)
    }

    /// The one sentence a person reads.
    public var message: String {
        switch self {
        case .notFound(let missing): "\(missing) does not exist."
        case .invalid(let errors, let title): errors.errors.count == 1 ? errors.errors[0].message : "\(title): \(errors.errors.count) fields are invalid."
        case .versionMismatch(let version, let expected) where expected > version:
            "Version \(expected) does not exist: the campaign is at version \(version); read it again and retry with its ETag."
        case .versionMismatch(let version, _): "Someone saved version \(version) since you read it; reload, reapply your change and retry."
        case .notAllowed(let detail): detail
        case .conflict(_, _, let detail, _): detail
        case .refused(_, _, let detail): detail
        case .sendingNotConfigured: "Sending is not configured on this server: set HERALD_SERVICE_ACCOUNT_KEY to a Firebase service-account key (or run the FCM emulator)."
        case .unavailable(let detail): detail
        case .rateLimited(let detail, _): detail
        }
    }
}

/// What a caller asked for that does not exist, as a value each face words in its own language
/// ("Campaign 3f… does not exist." in English, the same sentence in Persian).
public enum Missing: Sendable, Equatable, CustomStringConvertible {
    /// A campaign, by the id the caller gave (nil: the campaign just read, gone since).
    case campaign(String?)
    case journey(String)
    case segment
    case topicJob
    case device
    case user(String)
    case apiKey(String)
    case webhook(String)
    /// A one-call send, by its run's id.
    case send(String)
    /// A delivery of a webhook's, by its id.
    case webhookDelivery(String)
    /// A file of the server's own (a static asset, an uploaded image), by its path.
    case file(String)

    /// The English wording, as the API's default detail says it.
    public var description: String {
        switch self {
        case .campaign(let id?): "Campaign \(id)"
        case .campaign(nil): "The campaign"
        case .journey(let id): "Journey \(id)"
        case .segment: "The segment"
        case .topicJob: "The topic subscription job"
        case .device: "The device"
        case .user(let id): "User \(id)"
        case .apiKey(let id): "API key \(id)"
        case .webhook(let id): "Webhook \(id)"
        case .send(let id): "Send \(id)"
        case .webhookDelivery(let id): "Webhook delivery \(id)"
        case .file(let path): "The file \(path)"
        }
    }
}

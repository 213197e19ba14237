import HeraldCore

/// What an audit entry is about: an object of one kind, by its id or name.
public enum AuditObject: Sendable, Equatable {
    case campaign(CampaignID)
    case journey(JourneyID)
    case segment(SegmentID)
    case webhook(WebhookID)
    case user(UserID)
    case apiKey(APIKeyID)
    /// A device, by its token or FID.
    case device(String)
    case topic(String)
    /// The contact policy's frequency caps or its control group.
    case contactPolicy(ContactPolicyPart)
    /// An entry written by another version of Herald, whose kind or id this one does not read:
    /// shown as it was written.
    case other(type: String, text: String)

    public enum ContactPolicyPart: String, Sendable {
        case caps
        case controlGroup = "control_group"
    }

    /// The kind as the log keeps it (`campaign`, `api_key`…).
    public var type: String {
        switch self {
        case .campaign: "campaign"
        case .journey: "journey"
        case .segment: "segment"
        case .webhook: "webhook"
        case .user: "user"
        case .apiKey: "api_key"
        case .device: "device"
        case .topic: "topic"
        case .contactPolicy: "contact_policy"
        case .other(let type, _): type
        }
    }

    /// The id or name as the log keeps it.
    public var text: String {
        switch self {
        case .campaign(let id): id.description
        case .journey(let id): id.description
        case .segment(let id): id.description
        case .webhook(let id): id.description
        case .user(let id): id.description
        case .apiKey(let id): id.description
        case .device(let token): token
        case .topic(let topic): topic
        case .contactPolicy(let part): part.rawValue
        case .other(_, let text): text
        }
    }

    /// The object a stored entry names.
    init(type: String, text: String) {
        let read: AuditObject? = switch type {
        case "campaign": CampaignID(text).map { .campaign($0) }
        case "journey": JourneyID(text).map { .journey($0) }
        case "segment": SegmentID(text).map { .segment($0) }
        case "webhook": WebhookID(text).map { .webhook($0) }
        case "user": UserID(text).map { .user($0) }
        case "api_key": APIKeyID(text).map { .apiKey($0) }
        case "device": .device(text)
        case "topic": .topic(text)
        case "contact_policy": ContactPolicyPart(rawValue: text).map { .contactPolicy($0) }
        default: nil
        }
        self = read ?? .other(type: type, text: text)
    }
}

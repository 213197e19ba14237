import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON

/// A stored campaign: its content as stored and the bookkeeping around it.
///
/// The content was validated when it was written; reading does not validate it again, so one row
/// that a later rule no longer accepts still lists and reads. `spec()` parses it where a use case
/// needs the rules to hold (editing, planning, previews) and says so when they do not.
public struct CampaignRecord: Sendable, Equatable {
    public var id: CampaignID
    public var name: String
    public var status: CampaignStatus
    /// Counts content writes only (create, update, patch): lifecycle actions and the scheduler's
    /// status moves leave it, so an `If-Match` read before a run finished is still current.
    public var version: Int
    /// The contract's JSON as it was stored.
    public var content: JSON
    public var author: String?
    /// Who wrote the current version (nil for rows older than attribution).
    public var updatedBy: Attribution?
    /// When the next run is due; nil when nothing is armed.
    public var nextRunAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    /// Where it is in its approval (`none` unless approvals are or were on).
    public var approval = CampaignApproval()

    public init(id: CampaignID, name: String, status: CampaignStatus, version: Int, content: JSON, author: String?,
                createdAt: Date, updatedAt: Date, updatedBy: Attribution? = nil, nextRunAt: Date? = nil) {
        self.id = id
        self.name = name
        self.status = status
        self.version = version
        self.content = content
        self.author = author
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
        self.nextRunAt = nextRunAt
    }

    /// The content under today's rules.
    public func spec() throws(AppError) -> CampaignSpec {
        switch CampaignSpec.parse(content) {
        case .success(let spec): return spec
        case .failure(let errors):
            throw .conflict(code: "stored_content_invalid", title: "The stored campaign no longer passes validation",
                            detail: "Campaign \(id) holds content that today's rules refuse (\(errors.errors.map(\.message).joined(separator: "; "))); replace it with a valid version.",
                            currentStatus: status)
        }
    }

    /// The segment a campaign to a segment names, read from its content without parsing the
    /// whole campaign; nil for other audiences.
    public var segmentID: SegmentID? { content["segment"]?.stringValue.flatMap(SegmentID.init) }

    /// The strong entity tag of this version.
    public var etag: String { "\"\(version)\"" }
}

/// A campaign's approval: its state, the last decision's comment and who made it, and which
/// version was approved last.
public struct CampaignApproval: Sendable, Equatable {
    public var state: ApprovalState = .none
    public var comment: String?
    /// "user:ana@example.com" or "api_key:release bot": who approved or rejected it last.
    public var decidedBy: String?
    public var approvedVersion: Int?
    /// What `decidedBy` decided (approved or rejected): the state moves on after a resubmission
    /// or an edit, the decision stays with its comment.
    public var decision: ApprovalState?

    public init(state: ApprovalState = .none, comment: String? = nil, decidedBy: String? = nil, approvedVersion: Int? = nil,
                decision: ApprovalState? = nil) {
        self.state = state
        self.comment = comment
        self.decidedBy = decidedBy
        self.approvedVersion = approvedVersion
        self.decision = decision
    }

    /// Whether a scheduled campaign waits for this version's approval before any run starts
    /// (what the scheduler does with approvals on): scheduled, and not this version approved.
    public func runsHeld(status: CampaignStatus, version: Int) -> Bool {
        status == .scheduled && !(state == .approved && approvedVersion == version)
    }
}

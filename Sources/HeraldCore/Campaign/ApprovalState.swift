/// Where a campaign is in its approval, when approvals are on: an editor submits it, a publisher
/// other than its last editor approves or rejects it, and only an approved version may be
/// scheduled or sent. A content edit after approval needs approval again. The rules live here;
/// the stores bind these values and the pages and the API ask these functions.
public enum ApprovalState: String, Sendable, CaseIterable {
    /// Never submitted (or approvals were off when it was written).
    case none
    case awaiting = "awaiting_approval"
    case approved, rejected

    /// What a submission makes of this state; nil when submitting means nothing (already waiting,
    /// or the version is approved as it is).
    public var submitted: ApprovalState? {
        self == .none || self == .rejected ? .awaiting : nil
    }

    /// Only a version waiting for approval is approved or rejected.
    public var isDecidable: Bool { self == .awaiting }

    /// What a content edit makes of this state: an approved version that changes waits again; a
    /// rejected one stays rejected until it is submitted again.
    public var afterContentEdit: ApprovalState { self == .approved ? .awaiting : self }

    /// Whether the campaign may be scheduled or sent, with approvals `required` or not.
    public func allowsSending(required: Bool) -> Bool { !required || self == .approved }

    /// Why `approver` may not decide on a version last written by `lastEditor` (both as
    /// "kind:name", the same for one person or key every time); nil when they may.
    public static func selfApprovalRefusal(approver: String, lastEditor: String?) -> String? {
        guard let lastEditor, lastEditor == approver else { return nil }
        return "the last change was yours; a publisher other than its last editor decides on it"
    }
}

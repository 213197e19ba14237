/// Where a campaign is in its life: draft → scheduled → sending → sent | partially_failed | failed,
/// and cancelled from any state before the end. The rules of each state live here and nowhere
/// else: the stores bind these values into their SQL, the pages and the API ask these properties.
public enum CampaignStatus: String, Sendable, CaseIterable, Comparable {
    case draft, scheduled, sending, sent
    case partiallyFailed = "partially_failed"
    case failed, cancelled

    /// The content may still change: sending has not started.
    public var isEditable: Bool { self == .draft || self == .scheduled }

    /// Cancelling still stops something: no run has finished the campaign yet.
    public var isCancellable: Bool { self == .draft || self == .scheduled || self == .sending }

    /// Only a draft was never armed, so only a draft leaves no history behind when deleted.
    public var isDeletable: Bool { self == .draft }

    /// May be (re)armed to start its next run at a given time.
    public var isSchedulable: Bool { isEditable }

    /// The statuses with each property, as the stores bind them (`status = ANY($1)`).
    public static let editable = allCases.filter(\.isEditable)
    public static let cancellable = allCases.filter(\.isCancellable)

    /// What a campaign becomes when its last open run closes with these delivery counts.
    public static func afterRun(sent: Int, failed: Int) -> CampaignStatus {
        failed == 0 ? .sent : sent == 0 ? .failed : .partiallyFailed
    }

    /// Whether the order of the cases is the life order (for sorting in lists).
    public static func < (lhs: CampaignStatus, rhs: CampaignStatus) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Where one v1 request of a run is: waiting, waiting again after a retryable error, or final.
public enum DeliveryStatus: String, Sendable, CaseIterable {
    case pending, retrying, sent, failed, cancelled

    /// Not final: a worker may still claim it.
    public static let open: [DeliveryStatus] = [.pending, .retrying]
    /// Final after an answer from FCM (a cancelled delivery was never answered).
    public static let answered: [DeliveryStatus] = [.sent, .failed]
}

/// Where one execution of a campaign is.
public enum RunStatus: String, Sendable, CaseIterable {
    case sending, sent
    case partiallyFailed = "partially_failed"
    case failed, cancelled

    /// What a run becomes when its last delivery is final (the same rule as for its campaign).
    public static func closed(sent: Int, failed: Int) -> RunStatus {
        RunStatus(rawValue: CampaignStatus.afterRun(sent: sent, failed: failed).rawValue)!
    }
}

/// Where a campaign is in its life: draft → scheduled → sending → sent | partially_failed | failed
/// | nothing_sent, and cancelled from any state before the end. A scheduled or sending campaign may be paused
/// (no run starts, no delivery is claimed) and resumed to where it was. The rules of each state live here and nowhere
/// else: the stores bind these values into their SQL, the pages and the API ask these properties.
public enum CampaignStatus: String, Sendable, CaseIterable, Comparable {
    case draft, scheduled, sending, sent
    case partiallyFailed = "partially_failed"
    case failed, cancelled
    /// Held by a person: no run starts and no delivery of its runs is claimed until it is resumed.
    case paused
    /// Its last run reached nobody: every device was capped, held by a quiet category or the
    /// control group, or the audience had no one in it. Neither sent nor failed.
    case nothingSent = "nothing_sent"

    /// The content may still change: sending has not started.
    public var isEditable: Bool { self == .draft || self == .scheduled }

    /// Cancelling still stops something: no run has finished the campaign yet.
    public var isCancellable: Bool { self == .draft || self == .scheduled || self == .sending || self == .paused }

    /// Pausing still holds something back: a run may start or a delivery may still be sent.
    public var isPausable: Bool { self == .scheduled || self == .sending }

    /// What a paused campaign goes back to when resumed: what it was when paused. Nil when it is
    /// not paused, or `pausedFrom` is not a state a pause can have come from.
    public func resumed(to pausedFrom: CampaignStatus?) -> CampaignStatus? {
        guard self == .paused, let pausedFrom, pausedFrom.isPausable else { return nil }
        return pausedFrom
    }

    /// Only a draft was never armed, so only a draft leaves no history behind when deleted.
    public var isDeletable: Bool { self == .draft }

    /// May be (re)armed to start its next run at a given time.
    public var isSchedulable: Bool { isEditable }

    /// The statuses with each property, as the stores bind them (`status = ANY($1)`).
    public static let editable = allCases.filter(\.isEditable)
    public static let cancellable = allCases.filter(\.isCancellable)
    public static let pausable = allCases.filter(\.isPausable)

    /// What a campaign becomes when its last open run closes with these delivery counts (an
    /// expired request counts as failed). A run that sent nothing and failed nothing reached no one.
    public static func afterRun(sent: Int, failed: Int) -> CampaignStatus {
        if sent == 0 && failed == 0 { return .nothingSent }
        return failed == 0 ? .sent : sent == 0 ? .failed : .partiallyFailed
    }

    /// The order of life (for sorting in lists); a pause sits beside sending, where it happens.
    static let lifeOrder: [CampaignStatus] = [.draft, .scheduled, .paused, .sending, .sent, .nothingSent, .partiallyFailed, .failed, .cancelled]

    public static func < (lhs: CampaignStatus, rhs: CampaignStatus) -> Bool {
        lifeOrder.firstIndex(of: lhs)! < lifeOrder.firstIndex(of: rhs)!
    }
}

/// Where one v1 request of a run is: waiting, waiting again after a retryable error, or final.
public enum DeliveryStatus: String, Sendable, CaseIterable {
    case pending, retrying, sent, failed, cancelled
    /// Not sent by the campaign's latest-delivery time: dropped unsent, like a cancelled one.
    case expired
    /// Not sent: a frequency cap had the device's messages for the window already. Neither sent
    /// nor failed, and never sent later by its run.
    case capped

    /// Not final: a worker may still claim it.
    public static let open: [DeliveryStatus] = [.pending, .retrying]
    /// Final after an answer from FCM (a cancelled delivery was never answered).
    public static let answered: [DeliveryStatus] = [.sent, .failed]
    /// Dropped unsent (a request in flight at that moment may still be recorded as sent).
    public static let dropped: [DeliveryStatus] = [.cancelled, .expired]
}

/// Where one execution of a campaign is.
public enum RunStatus: String, Sendable, CaseIterable {
    case sending, sent
    case partiallyFailed = "partially_failed"
    case failed, cancelled
    /// It reached nobody (see `CampaignStatus.nothingSent`).
    case nothingSent = "nothing_sent"

    /// What a run becomes when its last delivery is final (the same rule as for its campaign).
    public static func closed(sent: Int, failed: Int) -> RunStatus {
        RunStatus(rawValue: CampaignStatus.afterRun(sent: sent, failed: failed).rawValue)!
    }
}

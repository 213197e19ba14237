/// Where a campaign is in its life: draft → scheduled → sending → sent | partially_failed | failed,
/// and cancelled from any state before the end.
public enum CampaignStatus: String, Sendable, CaseIterable {
    case draft, scheduled, sending, sent
    case partiallyFailed = "partially_failed"
    case failed, cancelled
}

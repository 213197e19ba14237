/// How a campaign's messages are labelled (`fcm_options.analytics_label`) for FCM's delivery
/// reports, which count at most 100 distinct labels a project a day (later ones go unreported,
/// in the Firebase console too). A label per variant gives delivery figures per variant; a label
/// per campaign one figure for all its variants; none, no figure.
public enum LabelMode: String, Sendable, CaseIterable {
    /// A label per variant while the day has room (`LabelBudget`), else one for the campaign,
    /// else none: what a busy team wants without counting.
    case auto
    case perVariant = "per_variant"
    case perCampaign = "per_campaign"
    case unlabelled = "none"

    /// Whether variants may get labels of their own (`auto` may, until it is resolved).
    public var mayLabelVariants: Bool { self == .auto || self == .perVariant }
}

/// The day's label budget: FCM reports at most `dailyLimit` labels a day, and `auto` keeps a share
/// of it for campaigns that come late in the day, so that each still gets a label of its own.
public enum LabelBudget {
    public static let dailyLimit = 100
    /// `auto` labels per variant only while the day stays within this many labels.
    public static let perVariantShare = 80

    /// What `mode` becomes for a campaign of `variants` variants when `used` labels went out today
    /// (in every instance) and its labels would add `addedPerVariant` (one per variant) or
    /// `addedPerCampaign` (one) new ones: labels it sent earlier today cost nothing again.
    public static func resolve(_ mode: LabelMode, variants: Int, used: Int, addedPerVariant: Int, addedPerCampaign: Int) -> LabelMode {
        guard mode == .auto else { return mode }
        let share = variants > 1 ? perVariantShare : dailyLimit
        if addedPerVariant == 0 || used + addedPerVariant <= share { return .perVariant }
        if addedPerCampaign == 0 || used + addedPerCampaign <= dailyLimit { return .perCampaign }
        return .unlabelled
    }

    /// Whether sending `added` new labels after `used` passes FCM's daily limit: labels past it go unreported.
    public static func passesLimit(used: Int, added: Int) -> Bool { used + added > dailyLimit }
}

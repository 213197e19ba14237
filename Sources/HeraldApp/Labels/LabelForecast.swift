import HeraldCore

/// What sending a campaign now does to the day's label budget, for the review page.
public struct LabelForecast: Sendable, Equatable {
    /// Labels sent today (UTC) by every instance, of `LabelBudget.dailyLimit`.
    public var used: Int
    /// What the campaign asks for (`auto` when it says nothing).
    public var chosen: LabelMode
    /// What a run starting now would send with (`auto` resolved).
    public var resolved: LabelMode
    /// Labels it would add to the day (those it sent earlier today cost nothing again).
    public var added: Int

    /// Whether it would pass FCM's daily limit: its labels past the 100th go unreported.
    public var passesLimit: Bool { LabelBudget.passesLimit(used: used, added: added) }
}

extension CampaignService {
    /// The label budget's view of sending `record` now, as the scheduler would decide it.
    public func labelForecast(_ record: CampaignRecord) throws -> LabelForecast {
        let spec = try record.spec()
        let id = record.id.description
        let (perVariant, perCampaign) = LabelDayStore.candidates(spec, campaignID: id)
        let (used, known) = try database.read { try LabelDayStore().today(among: perVariant + perCampaign, on: $0) }
        let newPerVariant = Set(perVariant).subtracting(known).count, newPerCampaign = Set(perCampaign).subtracting(known).count
        let chosen = spec.options.labels ?? .auto
        let resolved = LabelBudget.resolve(chosen, variants: spec.variants.count, used: used,
                                           addedPerVariant: newPerVariant, addedPerCampaign: newPerCampaign)
        let added = switch resolved {
        case .auto, .perVariant: newPerVariant
        case .perCampaign: newPerCampaign
        case .unlabelled: 0
        }
        return LabelForecast(used: used, chosen: chosen, resolved: resolved, added: added)
    }
}

import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON

/// What a campaign's report shows, for the report page, its CSV and the API alike
/// (`CampaignService.report`). Herald knows two kinds of numbers and says which is which:
/// **requests** (v1 requests sent to FCM; one topic request reaches every subscribed device, so
/// they are not people) and **events** (opens and conversions the apps report, one per person
/// and message as the apps send them).
public struct CampaignReport: Sendable {
    public struct VariantLine: Sendable, Equatable {
        public var key: String
        /// The first variant, which the others are compared with (when there are several).
        public var baseline: Bool
        public var requestsPlanned: Int
        public var requestsSent: Int
        public var requestsFailed: Int
        /// Devices a frequency cap kept it from (device audiences).
        public var requestsCapped = 0
        public var opens: Int
        public var conversions: Int
        /// Failed requests of those FCM answered; nil before any answer.
        public var failureRate: Double? { requestsSent + requestsFailed > 0 ? Double(requestsFailed) / Double(requestsSent + requestsFailed) : nil }
        /// Conversions per open; nil before any open.
        public var conversionRate: Double? { opens > 0 ? Double(min(conversions, opens)) / Double(opens) : nil }
        /// Against the baseline; nil for the baseline itself and for a single variant.
        public var comparison: ABStatistics.Comparison?
    }

    /// One hour of the campaign's life (UTC), for the trend chart.
    public struct Hour: Sendable, Equatable {
        /// "2026-11-23T20:00:00Z".
        public var start: String
        public var requestsSent: Int
        public var requestsFailed: Int
        /// Devices a frequency cap kept it from (device audiences).
        public var requestsCapped = 0
        public var opens: Int
        public var conversions: Int
    }

    public var campaign: CampaignRecord
    /// Runs newest first, as `GET …/runs` lists them.
    public var runs: [RunProgress]
    /// The first failed deliveries, as `GET …/deliveries?status=failed` lists them.
    public var failures: [DeliveryRecord]
    public var variants: [VariantLine]
    /// nil with a single variant: nothing to compare.
    public var verdict: ABStatistics.Verdict?
    public var hours: [Hour]
    /// For a campaign sent to devices one by one: the devices reached, the ones that failed, and
    /// those of them FCM has since called dead (now invalid); nil for topic campaigns.
    public var devices: DeviceReach?

    public struct DeviceReach: Sendable, Equatable {
        public var reached: Int
        public var failed: Int
        public var nowInvalid: Int
    }
    /// The automatic winner's decision and its figures, once made (`auto_winner`), and when.
    public struct DecidedWinner: Sendable, Equatable {
        public var decision: WinnerDecision
        public var decidedAt: Date
    }
    public var winnerDecision: DecidedWinner?
    /// What FCM says it delivered (the Data API), per variant.
    public var delivery: CampaignDelivery?

    public var requestsPlanned: Int { variants.reduce(0) { $0 + $1.requestsPlanned } }
    public var requestsAnswered: Int { variants.reduce(0) { $0 + $1.requestsSent + $1.requestsFailed } }
    public var isSending: Bool {
        campaign.status == .sending || runs.contains { $0.status == .sending }
    }

    /// The verdict in words, or why there is none.
    public var verdictSentence: String { verdict?.sentence ?? "One variant: nothing to compare." }

    /// Builds the report from what the stores read; the statistics are computed here, once.
    init(campaign: CampaignRecord, variantKeys: [String], runs: [RunProgress], totals: [String: ProgressStore.VariantTotals],
         failures: [DeliveryRecord], events: [String: EventCounts], hours: [Hour]) {
        var lines = variantKeys.enumerated().map { index, key in
            VariantLine(key: key, baseline: index == 0 && variantKeys.count > 1, requestsPlanned: totals[key]?.planned ?? 0,
                        requestsSent: totals[key]?.sent ?? 0, requestsFailed: totals[key]?.failed ?? 0,
                        requestsCapped: totals[key]?.capped ?? 0, opens: events[key]?.opens ?? 0, conversions: events[key]?.conversions ?? 0)
        }
        // Topic sends do not say how many devices received them, so conversions are compared per open.
        let groups = lines.map { ABStatistics.Group(key: $0.key, successes: $0.conversions, trials: $0.opens) }
        if groups.count > 1 {
            let result = ABStatistics.compare(baseline: groups[0], variants: Array(groups.dropFirst()))
            for comparison in result.comparisons {
                if let index = lines.firstIndex(where: { $0.key == comparison.key }) { lines[index].comparison = comparison }
            }
            verdict = result.verdict
        } else {
            verdict = nil
        }
        self.campaign = campaign
        self.runs = runs
        self.failures = failures
        self.variants = lines
        self.hours = hours
    }
}

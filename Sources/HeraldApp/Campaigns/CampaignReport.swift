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
    /// Runs newest first, as `GET …/runs` answers them.
    public var runs: [JSON]
    /// The first failed deliveries, as `GET …/deliveries?status=failed` answers them.
    public var failures: [JSON]
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
    /// The automatic winner's decision and its figures, once made (`auto_winner`).
    public var winnerDecision: JSON?
    /// What FCM says it delivered (the Data API), per variant.
    public var delivery: CampaignDelivery?

    public var requestsPlanned: Int { variants.reduce(0) { $0 + $1.requestsPlanned } }
    public var requestsAnswered: Int { variants.reduce(0) { $0 + $1.requestsSent + $1.requestsFailed } }
    public var isSending: Bool {
        campaign.status == .sending || runs.contains { $0["status"]?.stringValue == RunStatus.sending.rawValue }
    }

    /// The verdict in words, or why there is none.
    public var verdictSentence: String { verdict?.sentence ?? "One variant: nothing to compare." }

    /// Builds the report from what the stores read; the statistics are computed here, once.
    init(campaign: CampaignRecord, variantKeys: [String], runs: [JSON], totals: [String: ProgressStore.VariantTotals],
         failures: [JSON], events: [String: EventCounts], hours: [Hour]) {
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

    // MARK: - Faces

    /// The API's representation.
    public var json: JSON {
        let variants: [JSON] = variants.map { line in
            var object: JSONObject = [
                "key": .string(line.key), "baseline": .bool(line.baseline),
                "requests": ["planned": .number(Double(line.requestsPlanned)), "sent": .number(Double(line.requestsSent)),
                             "failed": .number(Double(line.requestsFailed)), "capped": .number(Double(line.requestsCapped)),
                             "failure_rate": Self.number(line.failureRate)],
                "events": ["opens": .number(Double(line.opens)), "conversions": .number(Double(line.conversions)),
                           "conversion_rate": Self.number(line.conversionRate)],
            ]
            object["comparison"] = line.comparison.map { comparison in
                ["difference": .number(comparison.difference),
                 "interval": [.number(comparison.interval.lowerBound), .number(comparison.interval.upperBound)],
                 "confidence": .number(1 - comparison.pValue), "significant": .bool(comparison.significant)]
            } ?? .null
            object["fcm_delivery"] = delivery?.variants[line.key].map(Self.json) ?? .null
            return .object(object)
        }
        var verdict: JSONObject = ["sentence": .string(verdictSentence), "rule": .string(ABStatistics.rule()),
                                   "minimum_opens": .number(Double(ABStatistics.minimumSample))]
        switch self.verdict {
        case nil: verdict["result"] = "single_variant"
        case .notEnoughData?: verdict["result"] = "not_enough_data"
        case .noClearWinner?: verdict["result"] = "no_clear_winner"
        case .leads(let key, _, _)?:
            verdict["result"] = "leads"
            verdict["variant"] = .string(key)
        }
        return [
            "winner_decision": winnerDecision ?? .null,
            "campaign_id": .string(campaign.id.description), "name": .string(campaign.name), "status": .string(campaign.status.rawValue),
            "requests": ["planned": .number(Double(requestsPlanned)), "answered": .number(Double(requestsAnswered))],
            "variants": .array(variants), "verdict": .object(verdict),
            "devices": devices.map { ["reached": .number(Double($0.reached)), "failed": .number(Double($0.failed)),
                                      "now_invalid": .number(Double($0.nowInvalid))] } ?? .null,
            "hours": .array(hours.map { hour in
                ["start": .string(hour.start), "requests_sent": .number(Double(hour.requestsSent)),
                 "requests_failed": .number(Double(hour.requestsFailed)), "opens": .number(Double(hour.opens)),
                 "conversions": .number(Double(hour.conversions))]
            }),
            "fcm_delivery": [
                "whole_campaign": delivery?.wholeCampaign.map(Self.json) ?? .null,
                "fetched_at": delivery?.fetchedAt.map { .string(RFC3339.utc(secondsSince1970: $0.timeIntervalSince1970)) } ?? .null,
                "scope": "Android devices that share usage and diagnostics data, by FCM's day; a day's figures may come up to a day late.",
            ],
        ]
    }

    /// FCM's figures of a label as the API gives them.
    static func json(_ figures: DeliveryFigures) -> JSON {
        ["accepted": .number(Double(figures.accepted)), "notifications_accepted": .number(Double(figures.notifications)),
         "outcomes": .object(JSONObject(DeliveryFigures.outcomeNames.map { ($0, JSON.number(Double(figures.outcomes[$0] ?? 0))) })),
         "first_day": figures.firstDay.map(JSON.string) ?? .null, "last_day": figures.lastDay.map(JSON.string) ?? .null]
    }

    /// The report as CSV (RFC 4180): one row per variant (`total`), then one per hour (`hour`).
    public var csv: String {
        var lines = ["section,variant,hour,requests_sent,requests_failed,opens,conversions,conversion_rate,difference_vs_baseline,confidence"]
        for line in variants {
            lines.append([
                "total", Self.csvField(line.key), "", String(line.requestsSent), String(line.requestsFailed), String(line.opens),
                String(line.conversions), Self.decimal(line.conversionRate), Self.decimal(line.comparison?.difference),
                Self.decimal(line.comparison.map { 1 - $0.pValue }),
            ].joined(separator: ","))
        }
        for hour in hours {
            lines.append(["hour", "", hour.start, String(hour.requestsSent), String(hour.requestsFailed), String(hour.opens),
                          String(hour.conversions), "", "", ""].joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func number(_ value: Double?) -> JSON { value.map { .number($0) } ?? .null }

    static func decimal(_ value: Double?) -> String { value.map { String(format: "%.4f", $0) } ?? "" }

    /// A field quoted when it holds a comma, a quote or a line break; a leading =, +, - or @ is
    /// prefixed with ' so that spreadsheets do not run it as a formula.
    static func csvField(_ text: String) -> String {
        var text = text
        if let first = text.first, "=+-@".contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

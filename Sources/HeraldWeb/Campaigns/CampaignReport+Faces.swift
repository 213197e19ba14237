import FCMMessage
import Foundation
import HeraldApp
import HeraldCore
import HeraldJSON

/// The report's faces: the API's JSON and the CSV download.
extension CampaignReport {
    /// The API's representation.
    var json: JSON {
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
            "winner_decision": winnerDecision?.json ?? .null,
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
                "fetched_at": delivery?.fetchedAt.map(JSON.time) ?? .null,
                "scope": "Android devices that share usage and diagnostics data, by FCM's day; a day's figures may come up to a day late.",
            ],
        ]
    }

    /// FCM's figures of a label as the API gives them: every figure of every group, as counts.
    static func json(_ figures: DeliveryFigures) -> JSON {
        var object: JSONObject = ["accepted": .number(Double(figures.accepted)), "notifications_accepted": .number(Double(figures.notifications)),
                                  "first_day": figures.firstDay.map(JSON.string) ?? .null, "last_day": figures.lastDay.map(JSON.string) ?? .null]
        for group in FCMDeliveryFigureGroup.allCases {
            object[Self.apiName(group)] = .object(JSONObject(group.figures.map { ($0, JSON.number(Double(figures.count(group, $0)))) }))
        }
        return .object(object)
    }

    /// The API's name of a group of FCM's figures.
    static func apiName(_ group: FCMDeliveryFigureGroup) -> String {
        switch group {
        case .messageOutcomePercents: "outcomes"
        case .deliveryPerformancePercents: "delivery_performance"
        case .messageInsightPercents: "message_insights"
        case .proxyNotificationInsightPercents: "proxy_notifications"
        }
    }

    /// The report as CSV (RFC 4180): one row per variant (`total`), then one per hour (`hour`).
    var csv: String {
        var text = CSVWriter.row(["section", "variant", "hour", "requests_sent", "requests_failed", "opens", "conversions", "conversion_rate",
                                  "difference_vs_baseline", "confidence"])
        for line in variants {
            text += CSVWriter.row([
                "total", line.key, "", String(line.requestsSent), String(line.requestsFailed), String(line.opens),
                String(line.conversions), Self.decimal(line.conversionRate), Self.decimal(line.comparison?.difference),
                Self.decimal(line.comparison.map { 1 - $0.pValue }),
            ])
        }
        for hour in hours {
            text += CSVWriter.row(["hour", "", hour.start, String(hour.requestsSent), String(hour.requestsFailed), String(hour.opens),
                                   String(hour.conversions), "", "", ""])
        }
        return text
    }

    static func number(_ value: Double?) -> JSON { value.map { .number($0) } ?? .null }

    static func decimal(_ value: Double?) -> String { value.map { String(format: "%.4f", $0) } ?? "" }
}

extension CampaignReport.DecidedWinner {
    /// The decision as the reports show it: its figures and sentence, and when it was made.
    var json: JSON {
        var decision = self.decision.json.objectValue ?? [:]
        decision["decided_at"] = .time(decidedAt)
        return .object(decision)
    }
}

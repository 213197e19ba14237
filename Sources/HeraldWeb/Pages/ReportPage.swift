import HeraldApp
import HeraldCore
import HeraldHTTP
import HeraldJSON

/// `/campaigns/{id}/report`: runs, delivery progress, per-variant results and which variant leads.
extension CampaignPages {
    func report(_ context: RequestContext) throws -> HTTPResponse {
        // One read per part of the page; a campaign the rules no longer accept cannot be planned, so says so.
        do {
            let record = try campaigns.get(context.parameter("id"))
            let runs = try campaigns.runs(record.id)
            let failures = try campaigns.deliveries(record.id, status: .failed, afterID: 0, limit: 100)
            let counts = try events.counts(campaignID: record.id)
            let keys = try record.spec().effectiveVariants.map(\.key)
            var delivery: [String: (planned: Int, sent: Int, failed: Int)] = [:]
            for run in runs {
                for (key, value) in run["variants"]?.objectValue ?? [:] {
                    var total = delivery[key] ?? (0, 0, 0)
                    total.planned += value["planned"]?.intValue ?? 0
                    total.sent += value[DeliveryStatus.sent.rawValue]?.intValue ?? 0
                    total.failed += value[DeliveryStatus.failed.rawValue]?.intValue ?? 0
                    delivery[key] = total
                }
            }
            let planned = delivery.values.reduce(0) { $0 + $1.planned }
            let done = delivery.values.reduce(0) { $0 + $1.sent + $1.failed }
            let sending = record.status == .sending || runs.contains { $0["status"]?.stringValue == RunStatus.sending.rawValue }
            // Topic sends do not say how many devices received them, so conversions are compared per open.
            let groups = keys.map { ABStatistics.Group(key: $0, successes: counts[$0]?.conversions ?? 0, trials: counts[$0]?.opens ?? 0) }
            let stats = groups.count > 1 ? ABStatistics.compare(baseline: groups[0], variants: Array(groups.dropFirst())) : nil
            let rows: [[String: Any]] = keys.map { key in
                let d = delivery[key] ?? (0, 0, 0)
                let c = counts[key] ?? EventStore.Counts()
                var row: [String: Any] = ["key": key, "planned": d.planned, "sent": d.sent, "failed": d.failed,
                                          "opens": c.opens, "conversions": c.conversions,
                                          "rate": c.opens > 0 ? Self.percent(Double(c.conversions) / Double(c.opens)) : "—"]
                if let comparison = stats?.comparisons.first(where: { $0.key == key }) {
                    row["difference"] = Self.signedPoints(comparison.difference)
                    row["interval"] = "\(Self.signedPoints(comparison.interval.lowerBound)) to \(Self.signedPoints(comparison.interval.upperBound))"
                    row["confidence"] = Self.percent(1 - comparison.pValue)
                }
                if key == keys.first, keys.count > 1 { row["baseline"] = true }
                return row
            }
            var view: [String: Any] = [
                "campaign": Self.row(record, viewer: context.viewer),
                "runs": runs.map { run -> [String: Any] in
                    let variants = run["variants"]?.objectValue ?? [:]
                    let sent = variants.members.reduce(0) { $0 + ($1.value[DeliveryStatus.sent.rawValue]?.intValue ?? 0) }
                    let failed = variants.members.reduce(0) { $0 + ($1.value[DeliveryStatus.failed.rawValue]?.intValue ?? 0) }
                    return ["status": run["status"]?.stringValue ?? "", "due": Self.shortTime(run["due_at"]?.stringValue ?? ""),
                            "finished": run["finished_at"]?.stringValue.map(Self.shortTime) ?? "—",
                            "planned": run["planned"]?.intValue ?? 0, "sent": sent, "failed": failed]
                },
                "no_runs": runs.isEmpty,
                "sending": sending, "planned": planned, "done": done,
                "progress_percent": planned > 0 ? done * 100 / planned : 0,
                "variants": rows,
                "verdict": stats?.verdict.sentence ?? (keys.count > 1 ? "" : "One variant: nothing to compare."),
                "failures": failures.map { failure -> [String: Any] in
                    ["variant": failure["variant"]?.stringValue ?? "", "target": Self.brief(failure["target"] ?? .null),
                     "code": failure["error"]?["code"]?.stringValue ?? "", "message": failure["error"]?["message"]?.stringValue ?? "",
                     "attempts": failure["attempts"]?.intValue ?? 0]
                },
                "chart": SVGChart.groupedBars(title: "Opens and conversions per variant", categories: keys,
                                              series: [.init(label: "Opens", cssClass: "bar-opens"), .init(label: "Conversions", cssClass: "bar-conversions")],
                                              values: keys.map { [counts[$0]?.opens ?? 0, counts[$0]?.conversions ?? 0] }),
                "delivery_chart": SVGChart.groupedBars(title: "Requests sent and failed per variant", categories: keys,
                                                       series: [.init(label: "Sent", cssClass: "bar-sent"), .init(label: "Failed", cssClass: "bar-failed")],
                                                       values: keys.map { [delivery[$0]?.sent ?? 0, delivery[$0]?.failed ?? 0] }),
            ]
            if sending { view["refresh"] = true }
            view["has_delivery_data"] = done > 0
            view["has_event_data"] = counts.values.contains { $0.opens + $0.conversions > 0 }
            return page("report", view, title: "Report: \(record.name)", context: context)
        }
    }

    static func percent(_ value: Double) -> String {
        let tenths = Int((value * 1000).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))%"
    }

    static func signedPoints(_ value: Double) -> String {
        let tenths = Int((value * 1000).rounded())
        let sign = tenths > 0 ? "+" : tenths < 0 ? "−" : "±"
        return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10) pts"
    }
}

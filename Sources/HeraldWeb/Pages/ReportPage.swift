import HeraldApp
import HeraldCore
import HeraldHTTP
import HeraldJSON

/// `/campaigns/{id}/report`: runs, delivery progress, per-variant results and which variant leads.
extension CampaignPages {
    func report(_ context: RequestContext) throws -> HTTPResponse {
        let (record, runs, failures) = try campaigns.progress(try context.campaignID(), failures: 100)
        let counts = try events.counts(campaignID: record.id.description)
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
        let rows = keys.map { key in
            let d = delivery[key] ?? (0, 0, 0)
            let c = counts[key] ?? EventStore.Counts()
            let comparison = stats?.comparisons.first { $0.key == key }
            return ReportView.Variant(
                key: key, baseline: key == keys.first && keys.count > 1, sent: d.sent, failed: d.failed, opens: c.opens,
                conversions: c.conversions, rate: c.opens > 0 ? Self.percent(Double(c.conversions) / Double(c.opens)) : "—",
                difference: comparison.map { Self.signedPoints($0.difference) },
                interval: comparison.map { "\(Self.signedPoints($0.interval.lowerBound)) to \(Self.signedPoints($0.interval.upperBound))" },
                confidence: comparison.map { Self.percent(1 - $0.pValue) })
        }
        return pages.page(ReportView(
            chrome: chrome(context, title: "Report: \(record.name)"), campaign: CampaignRow(record, viewer: context.viewer),
            runs: runs.map(ReportView.Run.init), noRuns: runs.isEmpty, sending: sending, planned: planned, done: done,
            progressPercent: planned > 0 ? done * 100 / planned : 0, variants: rows,
            verdict: stats?.verdict.sentence ?? (keys.count > 1 ? "" : "One variant: nothing to compare."),
            failures: failures.map(ReportView.Failure.init),
            chart: SVGChart.groupedBars(title: "Opens and conversions per variant", categories: keys,
                                        series: [.init(label: "Opens", cssClass: "bar-opens"), .init(label: "Conversions", cssClass: "bar-conversions")],
                                        values: keys.map { [counts[$0]?.opens ?? 0, counts[$0]?.conversions ?? 0] }),
            deliveryChart: SVGChart.groupedBars(title: "Requests sent and failed per variant", categories: keys,
                                                series: [.init(label: "Sent", cssClass: "bar-sent"), .init(label: "Failed", cssClass: "bar-failed")],
                                                values: keys.map { [delivery[$0]?.sent ?? 0, delivery[$0]?.failed ?? 0] }),
            hasDeliveryData: done > 0, hasEventData: counts.values.contains { $0.opens + $0.conversions > 0 }))
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

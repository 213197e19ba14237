import HeraldApp
import HeraldCore
import HeraldHTTP
import HeraldJSON

/// `/campaigns/{id}/report` and `/campaigns/{id}/report.csv`: runs, delivery progress,
/// per-variant results, which variant leads and the trend by hour, all from one
/// `CampaignService.report` (the API's `GET /api/v1/campaigns/{id}/report` reads the same).
extension CampaignPages {
    func report(_ context: RequestContext) throws -> HTTPResponse {
        let report = try campaigns.report(try context.campaignID())
        let keys = report.variants.map(\.key)
        let rows = report.variants.map { line in
            ReportView.Variant(
                key: line.key, baseline: line.baseline, sent: line.requestsSent, failed: line.requestsFailed, opens: line.opens,
                conversions: line.conversions, rate: line.conversionRate.map(Self.percent) ?? "—",
                difference: line.comparison.map { Self.signedPoints($0.difference) },
                interval: line.comparison.map { "\(Self.signedPoints($0.interval.lowerBound)) to \(Self.signedPoints($0.interval.upperBound))" },
                confidence: line.comparison.map { Self.percent(1 - $0.pValue) })
        }
        let planned = report.requestsPlanned, done = report.requestsAnswered
        return pages.page(ReportView(
            chrome: chrome(context, title: "Report: \(report.campaign.name)"), campaign: CampaignRow(report.campaign, viewer: context.viewer),
            runs: report.runs.map(ReportView.Run.init), noRuns: report.runs.isEmpty, sending: report.isSending, planned: planned, done: done,
            progressPercent: planned > 0 ? done * 100 / planned : 0, variants: rows,
            verdict: report.verdictSentence, rule: ABStatistics.rule(),
            failures: report.failures.map(ReportView.Failure.init),
            chart: SVGChart.groupedBars(title: "Opens and conversions per variant (events the apps reported)", categories: keys,
                                        series: [.init(label: "Opens", cssClass: "bar-opens"), .init(label: "Conversions", cssClass: "bar-conversions")],
                                        values: report.variants.map { [$0.opens, $0.conversions] }),
            deliveryChart: SVGChart.groupedBars(title: "Requests to FCM sent and failed per variant", categories: keys,
                                                series: [.init(label: "Requests sent", cssClass: "bar-sent"), .init(label: "Failed", cssClass: "bar-failed")],
                                                values: report.variants.map { [$0.requestsSent, $0.requestsFailed] }),
            trendChart: SVGChart.hourly(title: "By hour (UTC): opens, conversions and failed requests", hours: report.hours.map(\.start),
                                        series: [.init(label: "Opens", cssClass: "bar-opens"), .init(label: "Conversions", cssClass: "bar-conversions"),
                                                 .init(label: "Failed requests", cssClass: "bar-failed")],
                                        values: report.hours.map { [$0.opens, $0.conversions, $0.requestsFailed] }),
            hasDeliveryData: done > 0, hasEventData: report.variants.contains { $0.opens + $0.conversions > 0 },
            hasTrend: !report.hours.isEmpty,
            winnerOffer: Self.winnerOffer(report, role: context.viewer?.role ?? .viewer),
            winnerSent: report.runs.compactMap { $0["rollout_variant"]?.stringValue }.first,
            devicesLine: report.devices.map { "Devices reached: \($0.reached); failed: \($0.failed); found dead since (now invalid): \($0.nowInvalid)." },
            winnerDecision: report.winnerDecision.flatMap { decision in
                decision["sentence"]?.stringValue.map { "Automatic winner, decided \(Self.shortTime(decision["decided_at"]?.stringValue ?? "")): \($0)" }
            }))
    }

    /// The winner can go to the rest once a one-time test with a holdout has been sent, and once.
    static func winnerOffer(_ report: CampaignReport, role: Role) -> ReportView.WinnerOffer? {
        guard role >= .publisher, report.campaign.status == .sent || report.campaign.status == .partiallyFailed,
              let spec = try? report.campaign.spec(), spec.usesBuckets, spec.holdoutPercent > 0, spec.schedule?.isRecurring != true,
              !report.runs.contains(where: { $0["rollout_variant"]?.stringValue != nil }) else { return nil }
        // The variant that leads, else the baseline: the one a person would send without more data.
        var leader = report.variants.first { $0.baseline }?.key
        if case .leads(let key, _, _)? = report.verdict { leader = key }
        return ReportView.WinnerOffer(
            choices: report.variants.map { Choice($0.key, text: "Variant \($0.key)", selected: $0.key == leader) },
            question: "The chosen variant goes now to the \(spec.holdoutPercent)% of the audience the test left out. Devices get it within seconds; it cannot be taken back, and that holdout is no longer a control group.",
            holdoutPercent: spec.holdoutPercent)
    }

    /// The report as a CSV download (the same rows as the API's `?format=csv`).
    func reportCSV(_ context: RequestContext) throws -> HTTPResponse {
        Self.csvResponse(try campaigns.report(try context.campaignID()))
    }

    static func csvResponse(_ report: CampaignReport) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/csv; charset=utf-8")
        headers.add("Content-Disposition", "attachment; filename=\"herald-report-\(report.campaign.id).csv\"")
        headers.add("Cache-Control", "no-store")
        headers.add("X-Content-Type-Options", "nosniff")
        return HTTPResponse(status: 200, headers: headers, body: Array(report.csv.utf8))
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

import HeraldApp
import HeraldCore
import HeraldHTTP
import HeraldJSON

/// `/campaigns/{id}/report` and `/campaigns/{id}/report.csv`: runs, delivery progress,
/// per-variant results, which variant leads and the trend by hour, all from one
/// `CampaignService.report` (the API's `GET /api/v1/campaigns/{id}/report` reads the same).
extension CampaignPages {
    func report(_ context: RequestContext) throws -> HTTPResponse { try report(context, flash: nil) }

    func report(_ context: RequestContext, flash: String?, status: Int = 200) throws -> HTTPResponse {
        let words = context.words
        let report = try campaigns.report(try context.campaignID())
        let keys = report.variants.map(\.key)
        let rows = report.variants.map { line in
            ReportView.Variant(
                key: line.key, baseline: line.baseline, sent: words.number(line.requestsSent), failed: words.number(line.requestsFailed),
                opens: words.number(line.opens), conversions: words.number(line.conversions), rate: line.conversionRate.map { Self.percent($0, words: words) } ?? "—",
                difference: line.comparison.map { Self.signedPoints($0.difference, words: words) },
                interval: line.comparison.map { words.text("report.interval", Self.signedPoints($0.interval.lowerBound, words: words), Self.signedPoints($0.interval.upperBound, words: words)) },
                confidence: line.comparison.map { Self.percent(1 - $0.pValue, words: words) })
        }
        let planned = report.requestsPlanned, done = report.requestsAnswered
        let winnerSent = report.runs.compactMap(\.rolloutVariant).first
        let summaries = try segments.summaries(of: [report.campaign])
        var row = CampaignRow(report.campaign, viewer: context.viewer, segments: summaries, words: words)
        // The reach at planning beside the reach now, when a segment's last run went to another number.
        if let id = report.campaign.segmentID, let planned = report.runs.first?.planned,
           let now = summaries[id]?.devices, planned != now {
            row.plannedReach = words.plural("report.planned_reach", count: planned)
        }
        return pages.page(ReportView(
            chrome: PageChrome(context, title: words.text("report.title", report.campaign.name), flash: flash.map { [$0] } ?? []), campaign: row,
            runs: report.runs.map { ReportView.Run($0, words: words) }, noRuns: report.runs.isEmpty, sending: report.isSending, planned: planned, done: done,
            progressPercent: planned > 0 ? done * 100 / planned : 0,
            progressText: words.text("report.progress", words.number(done), words.number(planned)),
            progressPercentText: words.percent(whole: planned > 0 ? done * 100 / planned : 0), variants: rows,
            verdict: Self.verdictText(report.verdict, words: words), rule: Self.ruleText(ABStatistics.minimumSample, words: words),
            failures: report.failures.map { ReportView.Failure($0, words: words) },
            chart: SVGChart.groupedBars(title: words.text("report.chart.events"), categories: keys,
                                        series: [.init(label: words.text("report.chart.opens"), cssClass: "bar-opens"), .init(label: words.text("report.chart.conversions"), cssClass: "bar-conversions")],
                                        values: report.variants.map { [$0.opens, $0.conversions] }, words: words),
            deliveryChart: SVGChart.groupedBars(title: words.text("report.chart.delivery"), categories: keys,
                                                series: [.init(label: words.text("report.requests_sent"), cssClass: "bar-sent"), .init(label: words.text("report.failed"), cssClass: "bar-failed")],
                                                values: report.variants.map { [$0.requestsSent, $0.requestsFailed] }, words: words),
            trendChart: SVGChart.hourly(title: words.text("report.chart.hourly"), hours: report.hours.map(\.start),
                                        series: [.init(label: words.text("report.chart.opens"), cssClass: "bar-opens"), .init(label: words.text("report.chart.conversions"), cssClass: "bar-conversions"),
                                                 .init(label: words.text("report.chart.failed_requests"), cssClass: "bar-failed")],
                                        values: report.hours.map { [$0.opens, $0.conversions, $0.requestsFailed] }, words: words),
            hasDeliveryData: done > 0, hasEventData: report.variants.contains { $0.opens + $0.conversions > 0 },
            hasTrend: !report.hours.isEmpty,
            winnerOffer: Self.winnerOffer(report, role: context.viewer?.role ?? .viewer, words: words),
            winnerSent: winnerSent, winnerSentText: words.text("report.winner.sent", winnerSent ?? ""),
            devicesLine: report.devices.map {
                words.text("report.devices_line", words.number($0.reached), words.number($0.failed), words.number($0.nowInvalid))
            },
            cappedLine: Self.cappedLine(report, words: words),
            winnerDecision: report.winnerDecision.map {
                words.text("report.winner_decision", words.shortTime($0.decidedAt), $0.decision.sentence)
            },
            fcm: report.delivery.map { ReportView.FCMDelivery($0, variantKeys: keys, canRefresh: (context.viewer?.role ?? .viewer).may(.refreshDelivery) && sendingConfigured, words: words) }),
            status: status)
    }

    /// "The frequency caps kept 100 devices from this campaign (A 48, B 52)."; nil when they kept none.
    static func cappedLine(_ report: CampaignReport, words: Localized) -> String? {
        let total = report.variants.reduce(0) { $0 + $1.requestsCapped }
        guard total > 0 else { return nil }
        let parts = report.variants.map { "\(words.isolate($0.key)) \(words.number($0.requestsCapped))" }.joined(separator: words.text("list.separator"))
        return words.text("report.capped_line", words.number(total), parts)
    }

    /// Reads the FCM Data API now (every app, every campaign's labels) and shows the report again.
    func refreshFCMDelivery(_ context: RequestContext) throws -> HTTPResponse {
        let words = context.words
        _ = try context.campaignID()
        do {
            let refreshed = try deliveryData.refresh()
            return try report(context, flash: words.text("report.fcm.refreshed", words.number(refreshed.rows), words.number(refreshed.apps.count)))
        } catch let error as AppError {
            return try report(context, flash: words.message(error), status: ProblemRenderer.problem(for: error, words: words).status)
        }
    }

    /// The winner can go to the rest once a one-time test with a holdout has been sent, and once.
    static func winnerOffer(_ report: CampaignReport, role: Role, words: Localized) -> ReportView.WinnerOffer? {
        guard role.may(.sendWinner), report.campaign.status == .sent || report.campaign.status == .partiallyFailed,
              let spec = try? report.campaign.spec(), spec.usesBuckets, spec.holdoutPercent > 0, spec.schedule?.isRecurring != true,
              !report.runs.contains(where: { $0.rolloutVariant != nil }) else { return nil }
        // The variant that leads, else the baseline: the one a person would send without more data.
        var leader = report.variants.first { $0.baseline }?.key
        if case .leads(let key, _, _)? = report.verdict { leader = key }
        return ReportView.WinnerOffer(
            choices: report.variants.map { Choice($0.key, text: words.text("field.variant", $0.key), selected: $0.key == leader) },
            question: words.text("report.winner.question", words.percent(whole: spec.holdoutPercent)),
            holdoutPercent: spec.holdoutPercent,
            label: words.text("report.winner.label", words.percent(whole: spec.holdoutPercent)))
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

    /// A p-value with four decimals in the page's digits.
    static func pValueText(_ p: Double, words: Localized) -> String {
        words.decimal(p, digits: 4)
    }

    static func percent(_ value: Double, words: Localized) -> String {
        words.percent((value * 1000).rounded() / 1000, digits: 1)
    }

    static func signedPoints(_ value: Double, words: Localized) -> String {
        let tenths = Int((value * 1000).rounded())
        let sign = tenths > 0 ? "+" : tenths < 0 ? "−" : "±"
        let magnitude = words.decimal(Double(abs(tenths)) / 10, digits: 1)
        return words.text("report.points", sign + magnitude)
    }

    /// The A/B verdict in the page's language (`ABStatistics.Verdict.sentence` is its English).
    static func verdictText(_ verdict: ABStatistics.Verdict?, words: Localized) -> String {
        switch verdict {
        case nil: return words.text("report.verdict.single")
        case .notEnoughData(let needed)?: return words.text("report.verdict.not_enough", ruleText(needed, words: words))
        case .noClearWinner(let baseline)?: return words.text("report.verdict.no_winner", baseline)
        case .leads(let key, let baseline, let p)?:
            // A p below what four decimals show is "p < 0.0001" and "over 99.9 %", never "p = 0.0000"
            // and "100.0 % confidence": no test is that sure.
            let tiny = p < 0.00005
            let pText = tiny ? words.text("report.p_below", Self.pValueText(0.0001, words: words)) : "= " + Self.pValueText(p, words: words)
            let confidence = 1 - p >= 0.9995 ? words.text("report.confidence_over", percent(0.999, words: words)) : percent(1 - p, words: words)
            return words.text("report.verdict.leads", key, baseline, confidence, pText)
        }
    }

    /// "a winner is called only once every variant has at least 100 opens".
    static func ruleText(_ minimum: Int, words: Localized) -> String {
        words.text("report.rule", words.number(minimum))
    }
}

import FCMMessage
import HeraldApp
import HeraldCore
import HeraldJSON

/// `/campaigns/{id}/report`: runs, delivery progress, per-variant results with the comparison
/// against the baseline, the failed requests, and three charts Herald draws itself.
struct ReportView: PageView {
    /// One run of the campaign (a recurring campaign has one per occurrence).
    struct Run: Sendable {
        let status: String
        let statusText: String
        let due: String
        let finished: String
        let planned: String
        let sent: String
        let failed: String
        /// While it sends: how many other runs' topic fan-outs go before it (one at a time).
        let queue: String?
        /// At recipient time, while it sends: when its next wave goes and how many devices wait in all.
        let nextWave: String?

        init(_ run: RunProgress, words: Localized) {
            status = run.status.rawValue
            statusText = CampaignStatus(rawValue: status).map(words.statusText) ?? status
            due = words.shortTime(run.dueAt)
            finished = run.finishedAt.map(words.shortTime) ?? "—"
            planned = words.number(run.planned)
            sent = words.number(run.variants.reduce(0) { $0 + $1.counts.sent })
            failed = words.number(run.variants.reduce(0) { $0 + $1.counts.failed })
            queue = run.fanOutQueueAhead.map { ahead in
                ahead == 0 ? words.text("report.queue_next") : words.text("report.queue_ahead", words.number(ahead))
            }
            let waiting = run.waves?.filter { $0.waiting > 0 } ?? []
            nextWave = run.status == .sending ? waiting.first.map { wave in
                words.text("report.next_wave", words.shortTime(wave.at), words.number(waiting.reduce(0) { $0 + $1.waiting }))
            } : nil
        }
    }

    /// A variant's delivery and conversions; the comparison is absent for the baseline and when
    /// there is nothing to compare. The figures are in the page's digits (`words.number`).
    struct Variant: Sendable {
        let key: String
        let baseline: Bool
        let sent: String
        let failed: String
        let opens: String
        let conversions: String
        let rate: String
        let difference: String?
        let interval: String?
        let confidence: String?
    }

    /// A request FCM refused for good.
    struct Failure: Sendable {
        let variant: String
        let target: String
        let code: String
        let message: String
        let attempts: Int
        /// "2 attempts".
        let attemptsText: String

        init(_ failure: DeliveryRecord, words: Localized) {
            variant = failure.variant
            target = CampaignPages.brief(failure.target.json)
            code = failure.error?.code ?? ""
            message = failure.error?.message ?? ""
            attempts = failure.attempts
            attemptsText = words.plural("report.attempts", count: attempts)
        }
    }

    /// "Send the winner to the rest": offered once a one-time A/B test with a holdout has been
    /// sent, to a publisher, until it is done; then it says which variant went.
    struct WinnerOffer: Sendable {
        let choices: [Choice]
        let question: String
        let holdoutPercent: Int
        /// "Send the winner to the rest (10% of the audience, left out of the test)".
        let label: String
    }

    static let template = "report"
    let chrome: PageChrome
    let campaign: CampaignRow
    let runs: [Run]
    let noRuns: Bool
    /// While sending, the page refreshes itself and shows a progress bar.
    let sending: Bool
    let planned: Int
    let done: Int
    let progressPercent: Int
    /// "Sending: 3 of 10 requests to FCM done" and "30%".
    let progressText: String
    let progressPercentText: String
    let variants: [Variant]
    let verdict: String
    /// When a winner is called (`ABStatistics.rule`), the same words as the verdict's.
    let rule: String
    let failures: [Failure]
    /// SVG markup Herald builds (`SVGChart`), the only raw HTML in the pages.
    let chart: String
    let deliveryChart: String
    let trendChart: String
    let hasDeliveryData: Bool
    let hasEventData: Bool
    let hasTrend: Bool
    let winnerOffer: WinnerOffer?
    /// The variant already sent to the rest, if any.
    let winnerSent: String?
    let winnerSentText: String
    /// For a campaign to devices: the devices reached and failed, and those FCM has since called dead.
    var devicesLine: String? = nil
    /// The devices the frequency caps kept the campaign from, per variant, when any.
    var cappedLine: String? = nil
    /// The automatic winner's decision in words, with when it was made, once made.
    var winnerDecision: String? = nil
    /// What FCM says it delivered (its Data API), per variant.
    var fcm: FCMDelivery? = nil

    struct FCMDelivery: Sendable {
        /// One of FCM's figures across the variants (a column each), or a group's heading row.
        struct Row: Sendable {
            let name: String
            let values: [Cell]
            let heading: Bool
        }

        /// A figure of one variant, with the variant's name (a narrow screen stacks the cells).
        struct Cell: Sendable {
            let column: String
            let value: String
        }

        /// The variants' names, the table's columns.
        let columns: [String]
        /// The messages accepted, then each group of FCM's figures under its heading.
        let rows: [Row]
        let hasRows: Bool
        /// Columns and one for the figures' names, for a heading row's span.
        let span: Int
        /// Which devices and days the figures cover, and when FCM was last asked.
        let scope: String
        let canRefresh: Bool

        init(_ delivery: CampaignDelivery, variantKeys: [String], canRefresh: Bool, words: Localized) {
            var figures = variantKeys.compactMap { key in delivery.variants[key].map { (words.text("field.variant", key), $0) } }
            if let whole = delivery.wholeCampaign { figures.append((words.text("report.fcm.whole_campaign"), whole)) }
            columns = figures.map(\.0)
            func row(_ name: String, _ value: (DeliveryFigures) -> Int) -> Row {
                Row(name: name, values: figures.map { Cell(column: $0.0, value: words.number(value($0.1))) }, heading: false)
            }
            var rows = [row(words.text("report.fcm.accepted")) { $0.accepted }, row(words.text("report.fcm.notifications_accepted")) { $0.notifications }]
            for group in FCMDeliveryFigureGroup.allCases {
                rows.append(Row(name: words.text("report.fcm.group." + group.rawValue), values: [], heading: true))
                rows += group.figures.map { figure in row(words.text("report.fcm.figure." + figure)) { $0.count(group, figure) } }
            }
            self.rows = figures.isEmpty ? [] : rows
            hasRows = !figures.isEmpty
            span = figures.count + 1
            let all = Array(delivery.variants.values) + [delivery.wholeCampaign].compactMap { $0 }
            let days = (all.compactMap(\.firstDay).min(), all.compactMap(\.lastDay).max())
            var scope = words.text("report.fcm.scope")
            if let first = days.0, let last = days.1 {
                scope += " " + words.text("report.fcm.days", words.isolate(first), words.isolate(last))
            }
            if let fetched = delivery.fetchedAt {
                scope += " " + words.text("report.fcm.fetched", words.shortTime(RFC3339.utc(secondsSince1970: fetched.timeIntervalSince1970)))
            }
            self.scope = scope
            self.canRefresh = canRefresh
        }
    }
}

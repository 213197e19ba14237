import Foundation
import HeraldCore
import HeraldPostgres

/// A journey's figures while it runs, from its counters (written as devices move) and its send
/// steps' requests and events: per step of every version that had devices, and the goal's
/// conversion of those sent the journey against its holdout, by the A/B report's test.
public struct JourneyReport: Sendable, Equatable {
    public var journeyID: JourneyID
    public var publishedVersion: Int?
    /// Entrants, and those of them that reached the goal: sent the journey, and held out.
    public var entered: Int
    public var goal: Int
    public var heldOut: Int
    public var heldOutGoal: Int
    public var completed: Int
    public var stopped: Int
    public var gone: Int
    /// Devices in the journey now.
    public var inJourney: Int { entered + heldOut - goal - heldOutGoal - completed - stopped - gone }
    /// The goal's rate of those sent the journey against the holdout's (nil without a holdout).
    public var comparison: ABStatistics.Comparison?
    public var verdict: ABStatistics.Verdict?
    public var steps: [Step]

    public struct Step: Sendable, Equatable {
        public var version: Int
        public var index: Int
        public var name: String
        public var type: String
        /// Devices that reached it, moved past it, and rest at it now (a wait's waiting).
        public var reached: Int
        public var left: Int
        public var waiting: Int { reached - left }
        /// At a send step: requests written, and devices sent nothing (the holdout, the message's
        /// control group or quiet category); then what the engine made of the requests.
        public var sent: Int
        public var skipped: Int
        public var delivered: Int
        public var failed: Int
        public var capped: Int
        public var opened: Int
        public var converted: Int
        /// A send step's campaign (its report has the figures per variant) and its A/B test's
        /// decision, once called.
        public var campaignID: CampaignID?
        public var winner: CampaignReport.DecidedWinner?
    }
}

extension JourneyService {
    public func report(_ id: JourneyID) throws -> JourneyReport {
        try database.read { connection in
            guard let record = try store.find(id, on: connection) else { throw AppError.notFound(.journey(id.description)) }
            let rows = try connection.query("""
                SELECT version, step, counter, holdout, sum(n)::bigint AS n FROM journey_counts WHERE journey_id = \(id)::uuid GROUP BY 1, 2, 3, 4
                """).map { try $0.decode((Int, Int, String, Bool, Int).self, columns: "version", "step", "counter", "holdout", "n") }
            func total(_ counter: JourneyCounts.Counter, holdout: Bool? = nil, version: Int? = nil, step: Int = JourneyCounts.wholeJourney) -> Int {
                rows.filter { $0.2 == counter.rawValue && $0.1 == step && (holdout == nil || $0.3 == holdout) && (version == nil || $0.0 == version) }
                    .reduce(0) { $0 + $1.4 }
            }
            let versions = Set(rows.map(\.0)).sorted()
            let published = try JourneyCatalog.shared.versions(Set(versions.map { JourneyCatalog.Key(journeyID: id, version: $0) }), on: connection)
            let campaigns = published.values.flatMap { $0.campaigns.values }
            let outcomes = try JourneyOutcomes().outcomes(of: campaigns, on: connection)
            var steps: [JourneyReport.Step] = []
            for version in versions {
                guard let journey = published[JourneyCatalog.Key(journeyID: id, version: version)] else { continue }
                for (index, step) in journey.definition.steps.enumerated() {
                    let campaign = journey.campaigns[index]
                    let outcome = campaign.flatMap { outcomes[$0] } ?? JourneyOutcomes.Outcome()
                    steps.append(JourneyReport.Step(
                        version: version, index: index, name: step.name, type: step.typeName,
                        reached: total(.reached, version: version, step: index), left: total(.left, version: version, step: index),
                        sent: total(.sent, version: version, step: index), skipped: total(.skipped, version: version, step: index),
                        delivered: outcome.delivered, failed: outcome.failed, capped: outcome.capped, opened: outcome.opened, converted: outcome.converted,
                        campaignID: campaign, winner: try campaign.flatMap { try WinnerDecider.decision(of: $0, on: connection) }))
                }
            }
            var report = JourneyReport(
                journeyID: id, publishedVersion: record.publishedVersion,
                entered: total(.entered, holdout: false), goal: total(.goal, holdout: false),
                heldOut: total(.entered, holdout: true), heldOutGoal: total(.goal, holdout: true),
                completed: total(.completed), stopped: total(.stopped), gone: total(.gone), steps: steps)
            if report.heldOut > 0 {
                let holdout = ABStatistics.Group(key: "holdout", successes: report.heldOutGoal, trials: report.heldOut)
                let sent = ABStatistics.Group(key: "journey", successes: report.goal, trials: report.entered)
                let compared = ABStatistics.compare(baseline: holdout, variants: [sent])
                report.comparison = compared.comparisons.first
                report.verdict = compared.verdict
            }
            return report
        }
    }
}

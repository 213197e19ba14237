import Testing
@testable import HeraldCore

@Suite struct ABStatisticsTests {
    typealias Group = ABStatistics.Group

    @Test func aClearlyBetterVariantLeadsWithItsConfidence() throws {
        // 10% vs 15% of 1000 each: z ≈ 3.38, well past 1.645.
        let result = ABStatistics.compare(baseline: Group(key: "A", successes: 100, trials: 1000),
                                          variants: [Group(key: "B", successes: 150, trials: 1000)])
        let b = try #require(result.comparisons.first)
        #expect(abs(b.difference - 0.05) < 1e-12)
        #expect(abs(b.z - 3.3806) < 0.001)
        #expect(b.pValue < 0.001)
        #expect(b.interval.contains(0.05) && !b.interval.contains(0))
        guard case .leads(let key, let baseline, _) = result.verdict else { Issue.record("no leader"); return }
        #expect(key == "B" && baseline == "A")
        #expect(result.verdict.sentence.hasPrefix("Variant B leads"))
    }

    @Test func aSmallDifferenceIsNotAWinner() {
        let result = ABStatistics.compare(baseline: Group(key: "A", successes: 100, trials: 1000),
                                          variants: [Group(key: "B", successes: 110, trials: 1000)])
        #expect(result.verdict == .noClearWinner(baseline: "A"))
        #expect(result.comparisons[0].pValue > 0.05)
    }

    @Test func aWorseVariantNeverLeads() {
        let result = ABStatistics.compare(baseline: Group(key: "control", successes: 300, trials: 1000),
                                          variants: [Group(key: "B", successes: 100, trials: 1000)])
        #expect(result.verdict == .noClearWinner(baseline: "control"))
        #expect(result.comparisons[0].pValue > 0.99)
    }

    @Test func belowTheMinimumSampleItSaysSoPlainly() {
        // A huge difference on 99 recipients is still not a verdict.
        let result = ABStatistics.compare(baseline: Group(key: "A", successes: 1, trials: 99),
                                          variants: [Group(key: "B", successes: 90, trials: 500)])
        #expect(result.verdict == .notEnoughData(needed: 100))
        #expect(result.verdict.sentence.contains("Not enough data yet"))
    }

    @Test func theBestOfSeveralSignificantVariantsLeads() {
        let result = ABStatistics.compare(baseline: Group(key: "A", successes: 100, trials: 1000),
                                          variants: [Group(key: "B", successes: 150, trials: 1000), Group(key: "C", successes: 200, trials: 1000)])
        guard case .leads(let key, _, _) = result.verdict else { Issue.record("no leader"); return }
        #expect(key == "C")
    }

    @Test func theNormalTailMatchesKnownValues() {
        #expect(abs(ABStatistics.upperTail(0) - 0.5) < 1e-12)
        #expect(abs(ABStatistics.upperTail(ABStatistics.criticalZ) - 0.05) < 1e-9)
        #expect(abs(ABStatistics.upperTail(1.959963984540054) - 0.025) < 1e-9)
    }
}

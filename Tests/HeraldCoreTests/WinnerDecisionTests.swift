import HeraldCore
import HeraldJSON
import Testing

/// The automatic winner's decision, on figures chosen to be clear-cut either way.
@Suite struct WinnerDecisionTests {
    let opens99 = WinnerRule(afterMinutes: 60, metric: .opens, confidence: 99, fallback: .baseline)

    @Test func aVariantThatBeatsTheBaselineAt99PercentIsSentToTheRest() {
        // Equal shares of the audience (8 buckets each); B opened twice as often.
        let decision = WinnerDecision.decide(opens99, figures: [.init(key: "A", successes: 100, trials: 8), .init(key: "B", successes: 200, trials: 8)])
        #expect(decision.variantToSend == "B" && decision.won)
        let b = decision.figures[1]
        #expect(abs((b.z ?? 0) - 50 / 75.0.squareRoot()) < 1e-9)  // (200 − 300·½) / √(300·½·½)
        #expect((b.pValue ?? 1) < 0.01)
        #expect(decision.sentence.contains("Variant B beats A on opens with 99% confidence"))
    }

    @Test func opensAreWeighedByEachVariantsShareOfTheAudience() {
        // B had three times A's buckets and three times its opens: no better per device.
        let decision = WinnerDecision.decide(opens99, figures: [.init(key: "A", successes: 150, trials: 4), .init(key: "B", successes: 450, trials: 12)])
        #expect(decision.variantToSend == "A" && !decision.won)
        #expect(abs(decision.figures[1].z ?? 1) < 1e-9)
    }

    @Test func aTieSendsTheFallbackTheBaselineOrNothing() {
        let tie: [WinnerDecision.Figures] = [.init(key: "A", successes: 150, trials: 8), .init(key: "B", successes: 160, trials: 8)]
        let baseline = WinnerDecision.decide(opens99, figures: tie)
        #expect(baseline.variantToSend == "A" && !baseline.won)
        #expect(baseline.sentence.contains("No variant beats A on opens with 99% confidence: the baseline A goes to the rest"))
        var nothing = opens99
        nothing.fallback = .none
        let none = WinnerDecision.decide(nothing, figures: tie)
        #expect(none.variantToSend == nil && !none.won)
        #expect(none.sentence.hasSuffix("nothing more is sent."))
    }

    @Test func ninetyFivePercentCallsWhatNinetyNineDoesNot() {
        // z ≈ 1.9: significant at 95% (one-tailed), not at 99%.
        let figures: [WinnerDecision.Figures] = [.init(key: "A", successes: 60, trials: 300), .init(key: "B", successes: 80, trials: 300)]
        let conversions99 = WinnerRule(afterMinutes: 60, metric: .conversions, confidence: 99, fallback: .none)
        var conversions95 = conversions99
        conversions95.confidence = 95
        #expect(WinnerDecision.decide(conversions99, figures: figures).variantToSend == nil)
        #expect(WinnerDecision.decide(conversions95, figures: figures).variantToSend == "B")
    }

    @Test func tooFewEventsAtTheDeadlineSendTheFallback() {
        let decision = WinnerDecision.decide(opens99, figures: [.init(key: "A", successes: 5, trials: 8), .init(key: "B", successes: 40, trials: 8)])
        #expect(decision.variantToSend == "A" && !decision.won)
        #expect(decision.sentence.hasPrefix("Not enough data at the deadline"))
    }

    /// The report reads the decision back as it was kept: the same decision, z and p as written
    /// (rounded), and a stored value of another shape is no decision.
    @Test func aKeptDecisionReadsBackAsWritten() throws {
        let figures: [WinnerDecision.Figures] = [.init(key: "A", successes: 60, trials: 300), .init(key: "B", successes: 80, trials: 300)]
        let decision = WinnerDecision.decide(WinnerRule(afterMinutes: 60, metric: .conversions, confidence: 95, fallback: .none), figures: figures)
        let read = try #require(WinnerDecision(json: try JSON.parse(decision.json.serializedString())))
        #expect(read.json == decision.json)
        #expect(read.variantToSend == "B" && read.won && read.sentence == decision.sentence)
        #expect(read.figures.map(\.key) == ["A", "B"] && read.figures[1].z.map { abs($0 - decision.figures[1].z!) < 0.001 } == true)
        #expect(WinnerDecision(json: ["won": true]) == nil)
    }
}

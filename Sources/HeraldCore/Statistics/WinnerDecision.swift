import Foundation
import HeraldJSON

/// What the scheduler decides at an A/B test's winner deadline, with the figures it decided on:
/// a variant that beats the baseline (the first variant) on the rule's metric with the rule's
/// confidence is sent to the rest; otherwise the fallback (the baseline, or nothing). Pure.
///
/// Conversions are compared per open with the two-proportion z-test (`ABStatistics`). Opens have
/// no count of devices reached behind them (a topic send does not say how many got it), so they
/// are compared per share of the audience: given the opens of a variant and the baseline
/// together, the variant's part is binomial with its share of their buckets under "no
/// difference", and its z is that test's (one-tailed, like the other).
public struct WinnerDecision: Sendable, Equatable {
    /// One variant's figures.
    public struct Figures: Sendable, Equatable {
        public var key: String
        /// Opens, or conversions.
        public var successes: Int
        /// Audience buckets for opens, opens for conversions.
        public var trials: Int
        /// Against the baseline (nil for the baseline itself, or with nothing to compare).
        public var z: Double?
        public var pValue: Double?

        public init(key: String, successes: Int, trials: Int, z: Double? = nil, pValue: Double? = nil) {
            self.key = key
            self.successes = successes
            self.trials = trials
            self.z = z
            self.pValue = pValue
        }
    }

    /// The variant sent to the rest; nil: nothing is sent.
    public var variantToSend: String?
    /// Whether `variantToSend` won (false: it is the fallback, or nothing is sent).
    public var won: Bool
    public var sentence: String
    public var figures: [Figures]

    /// Decides with `rule` on each variant's figures (in the campaign's order, the baseline first;
    /// `trials` as the metric counts them).
    public static func decide(_ rule: WinnerRule, figures input: [Figures], minimumSample: Int = ABStatistics.minimumSample) -> WinnerDecision {
        guard let baseline = input.first else {
            return WinnerDecision(variantToSend: nil, won: false, figures: [], sentence: "The campaign has no variants to compare.")
        }
        var figures = [baseline]
        for variant in input.dropFirst() {
            var compared = variant
            if let (z, p) = test(rule.metric, variant, against: baseline) { (compared.z, compared.pValue) = (z, p) }
            figures.append(compared)
        }
        let alpha = 1 - Double(rule.confidence) / 100
        let fallback = rule.fallback == .baseline ? baseline.key : nil
        let fallbackText = fallback.map { "the baseline \($0) goes to the rest" } ?? "nothing more is sent"
        let measured = rule.metric == .opens ? "opens" : "opens (conversions are counted per open)"
        let thin = rule.metric == .opens ? figures.filter { $0.successes < minimumSample } : figures.filter { $0.trials < minimumSample }
        if !thin.isEmpty {
            return WinnerDecision(variantToSend: fallback, won: false, figures: figures, sentence:
                "Not enough data at the deadline (every variant needs \(minimumSample) \(measured); \(thin.map(\.key).joined(separator: ", ")) had fewer): \(fallbackText).")
        }
        let winners = figures.dropFirst().filter { ($0.pValue ?? 1) < alpha }.sorted { ($0.z ?? 0) > ($1.z ?? 0) }
        guard let best = winners.first, let p = best.pValue else {
            return WinnerDecision(variantToSend: fallback, won: false, figures: figures, sentence:
                "No variant beats \(baseline.key) on \(rule.metric.rawValue) with \(rule.confidence)% confidence: \(fallbackText).")
        }
        return WinnerDecision(variantToSend: best.key, won: true, figures: figures, sentence:
            "Variant \(best.key) beats \(baseline.key) on \(rule.metric.rawValue) with \(rule.confidence)% confidence (one-tailed p = \(String(format: "%.4f", p))): it goes to the rest.")
    }

    init(variantToSend: String?, won: Bool, figures: [Figures], sentence: String) {
        self.variantToSend = variantToSend
        self.won = won
        self.figures = figures
        self.sentence = sentence
    }

    /// z and the one-tailed p-value that `variant` beats `baseline`; nil with nothing to compare.
    static func test(_ metric: WinnerRule.Metric, _ variant: Figures, against baseline: Figures) -> (Double, Double)? {
        switch metric {
        case .conversions:
            return ABStatistics.compare(ABStatistics.Group(key: variant.key, successes: variant.successes, trials: variant.trials),
                                        with: ABStatistics.Group(key: baseline.key, successes: baseline.successes, trials: baseline.trials))
                .map { ($0.z, $0.pValue) }
        case .opens:
            let opens = Double(variant.successes + baseline.successes)
            let exposure = Double(variant.trials + baseline.trials)
            guard opens > 0, exposure > 0, variant.trials > 0, baseline.trials > 0 else { return nil }
            let share = Double(variant.trials) / exposure
            let z = (Double(variant.successes) - opens * share) / (opens * share * (1 - share)).squareRoot()
            return (z, ABStatistics.upperTail(z))
        }
    }

    /// A decision as `json` wrote it (z and p rounded as written); nil for anything else.
    public init?(json: JSON) {
        guard let sentence = json["sentence"]?.stringValue, let won = json["won"]?.boolValue,
              let figures = json["figures"]?.arrayValue else { return nil }
        var read: [Figures] = []
        for figure in figures {
            guard let key = figure["key"]?.stringValue, let successes = figure["successes"]?.intValue,
                  let trials = figure["trials"]?.intValue else { return nil }
            read.append(Figures(key: key, successes: successes, trials: trials, z: figure["z"]?.doubleValue, pValue: figure["p_value"]?.doubleValue))
        }
        self.init(variantToSend: json["variant"]?.stringValue, won: won, figures: read, sentence: sentence)
    }

    /// As the report and the audit log keep it.
    public var json: JSON {
        ["variant": variantToSend.map { .string($0) } ?? .null, "won": .bool(won), "sentence": .string(sentence),
         "figures": .array(figures.map { figure in
             ["key": .string(figure.key), "successes": .number(Double(figure.successes)), "trials": .number(Double(figure.trials)),
              "z": figure.z.map { .number(($0 * 1000).rounded() / 1000) } ?? .null,
              "p_value": figure.pValue.map { .number(($0 * 1_000_000).rounded() / 1_000_000) } ?? .null]
         })]
    }
}

import Foundation

/// Which A/B variant leads, and how sure that is: per-variant rates and a one-tailed
/// two-proportion z-test (α = 0.05) of each variant against the baseline (the holdout/control
/// when there is one, else the first variant), with the 95% confidence interval of the difference.
/// Pure arithmetic; below `minimumSample` trials in any compared group it says "not enough data yet".
public enum ABStatistics {
    /// Trials (sends, or opens for conversions) per group before any verdict is given.
    public static let minimumSample = 100
    /// One-tailed 5% critical value of the standard normal.
    public static let criticalZ = 1.6448536269514722
    /// Two-sided 95% value for the confidence interval.
    public static let intervalZ = 1.959963984540054

    /// The one statement of when a verdict is given, for the verdict and the report's explanation
    /// alike (trials are opens: conversions are compared per open).
    public static func rule(minimum: Int = minimumSample) -> String {
        "a winner is called only once every variant has at least \(minimum) opens"
    }

    /// One group's successes out of trials.
    public struct Group: Sendable, Equatable {
        public var key: String
        public var successes: Int
        public var trials: Int

        public init(key: String, successes: Int, trials: Int) {
            self.key = key
            self.successes = successes
            self.trials = trials
        }

        /// successes / trials, or nil with no trials.
        public var rate: Double? { trials > 0 ? Double(min(successes, trials)) / Double(trials) : nil }
    }

    /// A variant against the baseline.
    public struct Comparison: Sendable, Equatable {
        public var key: String
        /// rate(variant) − rate(baseline).
        public var difference: Double
        /// The 95% confidence interval of the difference (unpooled standard error).
        public var interval: ClosedRange<Double>
        public var z: Double
        /// P(Z ≥ z): the one-tailed p-value that the variant beats the baseline.
        public var pValue: Double
        /// Whether it beats the baseline at α = 0.05.
        public var significant: Bool { pValue < 0.05 }
    }

    public enum Verdict: Sendable, Equatable {
        /// Some compared group has fewer than `minimumSample` trials.
        case notEnoughData(needed: Int)
        /// No variant beats the baseline significantly.
        case noClearWinner(baseline: String)
        /// `key` beats the baseline with this one-tailed p-value.
        case leads(key: String, baseline: String, pValue: Double)

        /// A sentence for the report page.
        public var sentence: String {
            switch self {
            case .notEnoughData(let needed):
                "Not enough data yet: \(ABStatistics.rule(minimum: needed))."
            case .noClearWinner(let baseline):
                "No variant beats \(baseline) with 95% confidence yet."
            case .leads(let key, let baseline, let p):
                "Variant \(key) leads: it beats \(baseline) with \(Self.percent(1 - p)) confidence (one-tailed p = \(Self.fixed(p, 4)))."
            }
        }

        static func percent(_ value: Double) -> String { "\(fixed(value * 100, 1))%" }
        static func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
    }

    /// Compares every group after the first with `baseline` (the first group).
    public static func compare(baseline: Group, variants: [Group], minimumSample: Int = minimumSample) -> (comparisons: [Comparison], verdict: Verdict) {
        let comparisons = variants.compactMap { compare($0, with: baseline) }
        if ([baseline] + variants).contains(where: { $0.trials < minimumSample }) {
            return (comparisons, .notEnoughData(needed: minimumSample))
        }
        let winners = comparisons.filter(\.significant).sorted { $0.difference > $1.difference }
        guard let best = winners.first else { return (comparisons, .noClearWinner(baseline: baseline.key)) }
        return (comparisons, .leads(key: best.key, baseline: baseline.key, pValue: best.pValue))
    }

    /// The two-proportion z-test of `variant` against `baseline`; nil when either has no trials.
    public static func compare(_ variant: Group, with baseline: Group) -> Comparison? {
        guard let p1 = variant.rate, let p0 = baseline.rate else { return nil }
        let n1 = Double(variant.trials), n0 = Double(baseline.trials)
        let pooled = (p1 * n1 + p0 * n0) / (n1 + n0)
        let pooledError = (pooled * (1 - pooled) * (1 / n1 + 1 / n0)).squareRoot()
        let difference = p1 - p0
        let z = pooledError > 0 ? difference / pooledError : 0
        let error = (p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0).squareRoot()
        let half = intervalZ * error
        return Comparison(key: variant.key, difference: difference, interval: (difference - half)...(difference + half),
                          z: z, pValue: upperTail(z))
    }

    /// P(Z ≥ z) for the standard normal.
    public static func upperTail(_ z: Double) -> Double { 0.5 * erfc(z / 2.0.squareRoot()) }
}

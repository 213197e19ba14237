import Foundation
import HeraldJSON

/// How the scheduler picks an A/B test's winner on its own (the contract's `auto_winner`): at
/// `afterMinutes` past the test's send it compares each variant with the baseline (the first
/// variant) on `metric`, and sends a variant that beats it with `confidence` to the holdout;
/// with no such variant it sends the `fallback` (the baseline, or nothing).
public struct WinnerRule: Sendable, Equatable {
    public enum Metric: String, Sendable, CaseIterable {
        /// Opens per share of the audience each variant was sent to.
        case opens
        /// Conversions per open.
        case conversions
    }

    public enum Fallback: String, Sendable, CaseIterable {
        /// The baseline goes to the rest.
        case baseline
        /// Nothing more is sent.
        case none
    }

    public static let confidences = [90, 95, 99]
    public static let maximumMinutes = 30 * 24 * 60

    public var afterMinutes: Int
    public var metric: Metric
    /// Percent: 90, 95 or 99.
    public var confidence: Int
    public var fallback: Fallback

    public init(afterMinutes: Int, metric: Metric = .opens, confidence: Int = 95, fallback: Fallback = .baseline) {
        self.afterMinutes = afterMinutes
        self.metric = metric
        self.confidence = confidence
        self.fallback = fallback
    }

    public func toJSON() -> JSON {
        ["after_minutes": .number(Double(afterMinutes)), "metric": .string(metric.rawValue),
         "confidence": .number(Double(confidence)), "fallback": .string(fallback.rawValue)]
    }
}

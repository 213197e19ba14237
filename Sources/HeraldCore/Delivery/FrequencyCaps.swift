import Foundation
import HeraldJSON

/// How many marketing messages one device may get from every campaign together, per rolling
/// hour, day and week (each optional), and per category (a campaign's `delivery.category`) with
/// caps of its own. A transactional campaign is never capped and never counted.
public struct FrequencyCaps: Sendable, Equatable {
    /// At most so many messages in each rolling window; nil: no cap over that window.
    public struct Limits: Sendable, Equatable {
        public var hour: Int?
        public var day: Int?
        public var week: Int?

        public init(hour: Int? = nil, day: Int? = nil, week: Int? = nil) {
            self.hour = hour
            self.day = day
            self.week = week
        }

        public var isEmpty: Bool { hour == nil && day == nil && week == nil }

        /// Seconds of the longest window capped; nil when none is.
        var longestWindow: Int? { week != nil ? Window.week.seconds : day != nil ? Window.day.seconds : hour != nil ? Window.hour.seconds : nil }

        public func toJSON() -> JSON {
            var object = JSONObject()
            for window in Window.allCases { if let cap = self[window] { object[window.rawValue] = .number(Double(cap)) } }
            return .object(object)
        }

        public subscript(window: Window) -> Int? {
            switch window {
            case .hour: hour
            case .day: day
            case .week: week
            }
        }
    }

    /// The rolling windows a cap counts over.
    public enum Window: String, Sendable, CaseIterable {
        case hour, day, week

        public var seconds: Int {
            switch self {
            case .hour: 3600
            case .day: 86_400
            case .week: 7 * 86_400
            }
        }
    }

    /// Every marketing message counts here, whatever its category.
    public var marketing: Limits
    /// Caps of one category, on top of `marketing`.
    public var categories: [String: Limits]

    public init(marketing: Limits = Limits(), categories: [String: Limits] = [:]) {
        self.marketing = marketing
        self.categories = categories
    }

    /// No cap at all: nothing is counted, and sends cost nothing more.
    public var isEmpty: Bool { marketing.isEmpty && categories.values.allSatisfy(\.isEmpty) }

    /// How long a device's marketing messages are remembered: the longest window any cap counts over.
    public var memorySeconds: Int? { ([marketing] + categories.values).compactMap(\.longestWindow).max() }

    /// Whether a device whose marketing messages of late were `history` (when, and each one's
    /// category) may get one of `category` at `now`: the rule a claim enforces
    /// (DeviceTouchStore.admit) and the reach forecast reads.
    public func allows(_ history: [(at: Date, category: String?)], category: String?, now: Date) -> Bool {
        let own = category.flatMap { categories[$0] } ?? Limits()
        for window in Window.allCases {
            let since = now.addingTimeInterval(-Double(window.seconds))
            let recent = history.filter { $0.at > since }
            if let cap = marketing[window], recent.count >= cap { return false }
            if let cap = own[window], recent.filter({ $0.category != nil && $0.category == category }).count >= cap { return false }
        }
        return true
    }

    /// A cap is 1 to this many messages.
    public static let largestCap = 1000
    /// Categories with caps of their own.
    public static let maximumCategories = 50

    /// Reads `{"marketing": {"hour": 1, "day": 2, "week": 5}, "categories": {"promotions": {"day": 1}}}`,
    /// every problem at once.
    public static func parse(_ json: JSON) -> Result<FrequencyCaps, ValidationErrors> {
        var reader = JSONReader()
        guard let object = reader.object(json, at: "") else { return .failure(ValidationErrors(errors: reader.issues)) }
        reader.rejectUnknown(object, known: ["marketing", "categories"], at: "")
        func limits(_ parent: JSONObject, _ key: String, at path: String) -> Limits {
            guard let limits = reader.object(parent, key, at: path) else { return Limits() }
            let here = path.isEmpty ? key : JSONReader.path(path, key)
            reader.rejectUnknown(limits, known: Set(Window.allCases.map(\.rawValue)), at: here)
            var result = Limits()
            for window in Window.allCases {
                guard let cap = reader.int(limits, window.rawValue, at: here) else { continue }
                guard (1...largestCap).contains(cap) else {
                    reader.report(JSONReader.path(here, window.rawValue), "out_of_range",
                                  "a cap is 1 to \(largestCap) messages a \(window.rawValue), found \(cap); leave it out for no cap", limit: largestCap)
                    continue
                }
                switch window {
                case .hour: result.hour = cap
                case .day: result.day = cap
                case .week: result.week = cap
                }
            }
            return result
        }
        var caps = FrequencyCaps(marketing: limits(object, "marketing", at: ""))
        if let categories = reader.object(object, "categories", at: "") {
            if categories.count > maximumCategories {
                reader.report("categories", "too_many", "at most \(maximumCategories) categories, found \(categories.count)", limit: maximumCategories)
            }
            for (name, _) in categories {
                if let problem = CampaignCategory.problem(name) {
                    reader.report(JSONReader.path("categories", name), "invalid_key", problem)
                    continue
                }
                let parsed = limits(categories, name, at: "categories")
                if !parsed.isEmpty { caps.categories[name] = parsed }
            }
        }
        guard reader.issues.isEmpty else { return .failure(ValidationErrors(errors: reader.issues)) }
        return .success(caps)
    }

    public func toJSON() -> JSON {
        ["marketing": marketing.toJSON(),
         "categories": .object(JSONObject(categories.sorted { $0.key < $1.key }.map { ($0.key, $0.value.toJSON()) }))]
    }
}

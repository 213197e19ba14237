import Synchronization

/// Process-wide counters and histograms, rendered in Prometheus' text format at /metrics.
public final class Metrics: Sendable {
    struct Histogram: Sendable {
        let bounds: [Double]
        var counts: [Int]
        var sum = 0.0
        var count = 0

        init(bounds: [Double]) {
            self.bounds = bounds
            counts = Array(repeating: 0, count: bounds.count)
        }

        mutating func observe(_ value: Double) {
            for (index, bound) in bounds.enumerated() where value <= bound { counts[index] += 1 }
            sum += value
            count += 1
        }
    }

    struct State: Sendable {
        var counters: [String: [String: Double]] = [:]  // name → rendered labels → value
        var histograms: [String: [String: Histogram]] = [:]
        var help: [String: (type: String, text: String)] = [:]
        var requests: [RequestRoute: RequestTally] = [:]
    }

    /// The HTTP requests of one method and route pattern. Every request records one, so they are
    /// kept by their parts and rendered only when scraped: rendering and hashing the label text,
    /// and looking up each series by name, was a quarter of what /healthz cost.
    struct RequestRoute: Hashable, Sendable {
        let method: String
        let route: String
    }

    struct RequestTally: Sendable {
        var statuses: [Int: Int] = [:]
        var durations = Histogram(bounds: Metrics.durationBounds)
    }

    static let requestsName = "herald_http_requests_total"
    static let requestsHelp = "HTTP requests answered, by method, route pattern and status."
    static let durationName = "herald_http_request_duration_seconds"
    static let durationHelp = "Seconds to answer an HTTP request, by method and route pattern."

    let state = Mutex(State())

    /// Seconds from a run's due time to a delivery's first attempt.
    static let latenessBounds = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]
    /// Seconds to answer an HTTP request.
    static let durationBounds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    public init() {}

    /// Adds `amount` to a counter.
    func increment(_ name: String, _ labels: [(String, String)] = [], by amount: Double = 1, help: String) {
        let rendered = Self.render(labels)
        state.withLock { state in
            if state.help[name] == nil { state.help[name] = ("counter", help) }
            state.counters[name, default: [:]][rendered, default: 0] += amount
        }
    }

    /// Records one observation in a histogram.
    public func observe(_ name: String, _ value: Double, _ labels: [(String, String)] = [], bounds: [Double], help: String) {
        let rendered = Self.render(labels)
        state.withLock { state in
            if state.help[name] == nil { state.help[name] = ("histogram", help) }
            state.histograms[name, default: [:]][rendered, default: Histogram(bounds: bounds)].observe(value)
        }
    }

    /// Counts an answered HTTP request (`herald_http_requests_total`, by method, route pattern and
    /// status) and its duration (`herald_http_request_duration_seconds`, by method and route).
    public func recordRequest(method: String, route: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests[RequestRoute(method: method, route: route), default: RequestTally()].record(status: status, seconds: seconds)
        }
    }

    /// A counter's current value (tests and reports).
    public func value(_ name: String, _ labels: [(String, String)] = []) -> Double {
        state.withLock { $0.withRequestSeries().counters[name]?[Self.render(labels)] ?? 0 }
    }

    /// A gauge computed at scrape time, with a value per set of labels.
    public struct Gauge: Sendable {
        public var name: String
        public var help: String
        public var series: [(labels: [(String, String)], value: Double)]
    }

    /// The text exposition format (version 0.0.4); `extra` and `families` add gauges computed at scrape time.
    public func exposition(gauges extra: [(name: String, help: String, value: Double)] = [], families: [Gauge] = []) -> String {
        var lines: [String] = []
        let state = state.withLock { $0 }.withRequestSeries()
        for name in state.help.keys.sorted() {
            guard let (type, text) = state.help[name] else { continue }
            lines.append("# HELP \(name) \(text)")
            lines.append("# TYPE \(name) \(type)")
            for (labels, value) in (state.counters[name] ?? [:]).sorted(by: { $0.key < $1.key }) {
                lines.append("\(name)\(labels.isEmpty ? "" : "{\(labels)}") \(Self.format(value))")
            }
            for (labels, histogram) in (state.histograms[name] ?? [:]).sorted(by: { $0.key < $1.key }) {
                let prefix = labels.isEmpty ? "" : "\(labels),"
                for (bound, count) in zip(histogram.bounds, histogram.counts) {
                    lines.append("\(name)_bucket{\(prefix)le=\"\(Self.format(bound))\"} \(count)")
                }
                lines.append("\(name)_bucket{\(prefix)le=\"+Inf\"} \(histogram.count)")
                lines.append("\(name)_sum\(labels.isEmpty ? "" : "{\(labels)}") \(Self.format(histogram.sum))")
                lines.append("\(name)_count\(labels.isEmpty ? "" : "{\(labels)}") \(histogram.count)")
            }
        }
        for gauge in extra {
            lines.append("# HELP \(gauge.name) \(gauge.help)")
            lines.append("# TYPE \(gauge.name) gauge")
            lines.append("\(gauge.name) \(Self.format(gauge.value))")
        }
        for gauge in families {
            lines.append("# HELP \(gauge.name) \(gauge.help)")
            lines.append("# TYPE \(gauge.name) gauge")
            for (labels, value) in gauge.series {
                lines.append("\(gauge.name)\(labels.isEmpty ? "" : "{\(Self.render(labels))}") \(Self.format(value))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `name="value",…` with values escaped as the text format asks (backslash, quote, newline).
    static func render(_ labels: [(String, String)]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(labels.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 4 })
        for (index, (name, value)) in labels.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: name.utf8)
            bytes.append(contentsOf: "=\"".utf8)
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): bytes.append(contentsOf: "\\\\".utf8)
                case UInt8(ascii: "\""): bytes.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\n"): bytes.append(contentsOf: "\\n".utf8)
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension Metrics.RequestTally {
    mutating func record(status: Int, seconds: Double) {
        statuses[status, default: 0] += 1
        durations.observe(seconds)
    }
}

extension Metrics.State {
    /// These series with the HTTP requests' among them, as the generic ones are kept.
    func withRequestSeries() -> Metrics.State {
        guard !requests.isEmpty else { return self }
        var state = self
        state.help[Metrics.requestsName] = ("counter", Metrics.requestsHelp)
        state.help[Metrics.durationName] = ("histogram", Metrics.durationHelp)
        for (series, tally) in requests {
            let labels = Metrics.render([("method", series.method), ("route", series.route)])
            state.histograms[Metrics.durationName, default: [:]][labels] = tally.durations
            for (status, count) in tally.statuses {
                state.counters[Metrics.requestsName, default: [:]][labels + "," + Metrics.render([("status", String(status))])] = Double(count)
            }
        }
        return state
    }
}

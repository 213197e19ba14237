import Testing
@testable import HeraldApp

/// Labels in Prometheus' text format: plain values as they are, backslash, quote and newline escaped.
@Suite struct MetricsTests {
    @Test func labelsAreRenderedAndEscapedAsTheTextFormatAsks() {
        #expect(Metrics.render([]) == "")
        #expect(Metrics.render([("method", "GET"), ("route", "/api/v1/campaigns/{id}")]) == #"method="GET",route="/api/v1/campaigns/{id}""#)
        #expect(Metrics.render([("route", "a\"b\\c\nd")]) == #"route="a\"b\\c\nd""#)
        #expect(Metrics.render([("route", "سلام")]) == #"route="سلام""#)
    }

    @Test func countersAndHistogramsAccumulatePerLabelSet() {
        let metrics = Metrics()
        metrics.increment("x_total", [("route", "/a")], help: "x")
        metrics.increment("x_total", [("route", "/a")], help: "x")
        metrics.increment("x_total", [("route", "/b")], help: "x")
        #expect(metrics.value("x_total", [("route", "/a")]) == 2)
        #expect(metrics.value("x_total", [("route", "/b")]) == 1)
        metrics.observe("d_seconds", 0.3, bounds: [0.1, 0.5], help: "d")
        let text = metrics.exposition()
        #expect(text.contains(#"d_seconds_bucket{le="0.1"} 0"#))
        #expect(text.contains(#"d_seconds_bucket{le="0.5"} 1"#))
        #expect(text.contains(#"d_seconds_bucket{le="+Inf"} 1"#))
    }
}

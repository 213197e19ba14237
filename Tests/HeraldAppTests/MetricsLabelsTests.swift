import Testing
@testable import HeraldApp

/// Labels rendered once and extended name the same series as the full list would.
@Suite struct MetricsLabelsTests {
    @Test func extendedLabelsNameTheSameSeriesAsTheFullList() {
        let metrics = Metrics()
        let shared = Metrics.Labels([("method", "GET"), ("route", "/a \"b\"")])
        metrics.increment("requests_total", shared.adding("status", "200"), help: "h")
        metrics.increment("requests_total", [("method", "GET"), ("route", "/a \"b\""), ("status", "200")], help: "h")
        #expect(metrics.value("requests_total", [("method", "GET"), ("route", "/a \"b\""), ("status", "200")]) == 2)
        #expect(Metrics.Labels([]).adding("only", "one").rendered == Metrics.render([("only", "one")]))
        let text = metrics.exposition()
        #expect(text.contains(#"requests_total{method="GET",route="/a \"b\"",status="200"} 2"#), "\(text)")
    }
}

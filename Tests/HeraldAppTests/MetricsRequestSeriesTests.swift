import Testing
@testable import HeraldApp

/// HTTP requests are kept by their parts and rendered when scraped; a scrape must show them as the
/// same series, in the same text, as counting them through the generic counter and histogram.
@Suite struct MetricsRequestSeriesTests {
    @Test func requestsRecordedByPartsScrapeAsTheGenericSeriesWould() {
        let parts = Metrics()
        let generic = Metrics()
        let requests: [(method: String, route: String, status: Int, seconds: Double)] = [
            ("GET", "/a \"b\"", 200, 0.002), ("GET", "/a \"b\"", 200, 0.3), ("GET", "/a \"b\"", 404, 0.0005),
            ("POST", "unmatched", 405, 1.5),
        ]
        for request in requests {
            parts.recordRequest(method: request.method, route: request.route, status: request.status, seconds: request.seconds)
            generic.increment(Metrics.requestsName, [("method", request.method), ("route", request.route), ("status", String(request.status))],
                              help: Metrics.requestsHelp)
            generic.observe(Metrics.durationName, request.seconds, [("method", request.method), ("route", request.route)],
                            bounds: Metrics.durationBounds, help: Metrics.durationHelp)
        }
        parts.increment("herald_other_total", help: "Another counter, rendered beside them.")
        generic.increment("herald_other_total", help: "Another counter, rendered beside them.")
        #expect(parts.exposition() == generic.exposition())
        let text = parts.exposition()
        #expect(text.contains(#"herald_http_requests_total{method="GET",route="/a \"b\"",status="200"} 2"#), "\(text)")
        #expect(text.contains(#"herald_http_request_duration_seconds_bucket{method="GET",route="/a \"b\"",le="0.0025"} 2"#), "\(text)")
        #expect(text.contains(#"herald_http_request_duration_seconds_count{method="POST",route="unmatched"} 1"#), "\(text)")
        #expect(parts.value(Metrics.requestsName, [("method", "GET"), ("route", "/a \"b\""), ("status", "404")]) == 1)
    }

    @Test func noRequestsMeansNoRequestSeries() {
        #expect(!Metrics().exposition().contains("herald_http_requests_total"))
    }
}

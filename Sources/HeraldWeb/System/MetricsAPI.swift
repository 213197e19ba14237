import HeraldApp
import HeraldHTTP

/// `/metrics` in Prometheus' text format: this process's counters and histograms, the pool's
/// gauges, and the background services' (which leads, each service's last step).
///
/// Open on purpose: Prometheus scrapes without credentials, and the text holds only counts
/// (requests by method and status, durations, pool gauges), no campaign, user or key data.
/// Keep it off the public internet at the proxy (deploy/nginx) if that matters to you.
struct MetricsAPI: Sendable {
    let app: HeraldApplication

    func scrape(_ context: RequestContext) -> HTTPResponse {
        let pool = app.poolStatistics
        let text = app.metrics.exposition(gauges: [
            ("herald_db_pool_open_connections", "Database connections open in this process's pool.", Double(pool.open)),
            ("herald_db_pool_in_use_connections", "Database connections lent out right now.", Double(pool.inUse)),
            ("herald_db_pool_waiting", "Callers waiting for a database connection.", Double(pool.waiting)),
        ] + (app.engine?.quotaGauges ?? []), families: app.backgroundGauges)
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        return HTTPResponse(status: 200, headers: headers, body: Array(text.utf8))
    }
}

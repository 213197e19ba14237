import HeraldHTTP
import HeraldPostgres

/// `/metrics` in Prometheus' text format: this process's counters and histograms, and the pool's gauges.
struct MetricsAPI: Sendable {
    let pool: PostgresPool
    let metrics: Metrics

    func register(on router: inout Router) {
        router.add(.get, "/metrics") { _ in
            let pool = pool.statistics
            let text = metrics.exposition(gauges: [
                ("herald_db_pool_open_connections", "Database connections open in this process's pool.", Double(pool.open)),
                ("herald_db_pool_in_use_connections", "Database connections lent out right now.", Double(pool.inUse)),
                ("herald_db_pool_waiting", "Callers waiting for a database connection.", Double(pool.waiting)),
            ])
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            return HTTPResponse(status: 200, headers: headers, body: Array(text.utf8))
        }
    }
}

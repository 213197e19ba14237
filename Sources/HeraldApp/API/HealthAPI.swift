import HeraldHTTP
import HeraldJSON
import HeraldPostgres

/// `/healthz`: the process answers. `/readyz`: it can also reach its database, so a load balancer
/// sends it traffic.
struct HealthAPI: Sendable {
    let pool: PostgresPool
    let log: Log

    func register(on router: inout Router, access: AccessControl) {
        router.add(.get, "/healthz", access.open { _ in
            APIResponse(status: 200, body: ["status": "ok"]).httpResponse
        })
        router.add(.get, "/readyz", access.open { _ in
            do {
                _ = try pool.withConnection { try $0.query("SELECT 1") }
                return APIResponse(status: 200, body: ["status": "ready", "database": "ok"]).httpResponse
            } catch {
                log.warning("not ready: \(error)")
                return APIResponse(status: 503, body: ["status": "unavailable", "database": "unreachable"],
                                   headers: [("Retry-After", "2")]).httpResponse
            }
        })
    }
}

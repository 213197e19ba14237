import HeraldApp
import HeraldJSON

/// `/healthz`: the process answers. `/readyz`: it can also reach its database, so a load balancer
/// sends it traffic.
struct HealthAPI: Sendable {
    let app: HeraldApplication

    /// The liveness answer never changes: serialised once, not built and written per probe.
    static let liveBody = (["status": "ok"] as JSON).serialized()

    func live(_ context: RequestContext) -> APIResponse {
        APIResponse(status: 200, serializedBody: Self.liveBody)
    }

    func ready(_ context: RequestContext) -> APIResponse {
        app.databaseAnswers()
            ? APIResponse(status: 200, body: ["status": "ready", "database": "ok"])
            : APIResponse(status: 503, body: ["status": "unavailable", "database": "unreachable"], headers: [("Retry-After", "2")])
    }
}

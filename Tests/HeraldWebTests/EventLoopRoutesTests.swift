import HeraldHTTP
import Testing
@testable import HeraldWeb

/// Routes answered on the event loop must never block (no database, no slow lock): a blocking
/// one would stall every connection of its loop. Adding one is a decision this list records.
@Suite struct EventLoopRoutesTests {
    @Test func onlyTheLivenessProbeRunsOnTheLoop() throws {
        let herald = try TestHerald()
        let onLoop = herald.server.routes.filter(\.route.onLoop).map { "\($0.method.rawValue) \($0.pattern)" }
        #expect(onLoop == ["GET /healthz"])
        let probe = herald.server.web.dispatch(HTTPRequest(method: .get, target: "/healthz", headers: HTTPHeaders(), body: [], remoteAddress: "127.0.0.1:1"))
        guard case .answered(let answer) = probe else {
            Issue.record("the probe was not answered on the loop")
            return
        }
        #expect(answer.status == 200)
        guard case .quickHandler = herald.server.web.dispatch(HTTPRequest(method: .get, target: "/readyz", headers: HTTPHeaders(), body: [], remoteAddress: "127.0.0.1:1")) else {
            Issue.record("/readyz should go to the quick handlers")
            return
        }
        guard case .handler = herald.server.web.dispatch(HTTPRequest(method: .post, target: "/sign-in", headers: HTTPHeaders(), body: [], remoteAddress: "127.0.0.1:1")) else {
            Issue.record("signing in (password hashing) should go to the handlers for long waits")
            return
        }
    }
}

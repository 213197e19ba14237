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
        let probe = herald.server.web.respondOnLoop(HTTPRequest(method: .get, target: "/healthz", headers: HTTPHeaders(), body: [], remoteAddress: "127.0.0.1:1"))
        #expect(probe?.status == 200)
        #expect(herald.server.web.respondOnLoop(HTTPRequest(method: .get, target: "/readyz", headers: HTTPHeaders(), body: [], remoteAddress: "127.0.0.1:1")) == nil)
    }
}

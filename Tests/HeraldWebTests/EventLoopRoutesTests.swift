import Foundation
import HeraldHTTP
import HeraldJSON
import Testing
@testable import HeraldWeb

/// Routes answered on the event loop must never block (no database, no slow lock): a blocking
/// one would stall every connection of its loop. Adding one is a decision this list records.
@Suite struct EventLoopRoutesTests {
    @Test func onlyTheLivenessProbeRunsOnTheLoop() throws {
        let herald = try TestHerald()
        let onLoop = herald.server.routes.filter(\.route.onLoop).map { "\($0.method.rawValue) \($0.pattern)" }
        #expect(onLoop == ["GET /healthz"])
        func dispatch(_ method: HTTPMethod, _ target: String) -> LoopDecision {
            var request = HTTPRequest(method: method, target: target, headers: HTTPHeaders(), body: [], remoteAddress: "127.0.0.1:1")
            return herald.server.web.dispatch(&request)
        }
        let probe = dispatch(.get, "/healthz")
        guard case .answered(let answer) = probe else {
            Issue.record("the probe was not answered on the loop")
            return
        }
        #expect(answer.status == 200)
        guard case .quickHandler = dispatch(.get, "/readyz") else {
            Issue.record("/readyz should go to the quick handlers")
            return
        }
        guard case .handler = dispatch(.post, "/sign-in") else {
            Issue.record("signing in (password hashing) should go to the handlers for long waits")
            return
        }
    }

    /// The event loop finds each request's route once and notes it on the request; the handler
    /// must run that route with that request's own parameters, and a HEAD the GET route's answer
    /// without its body.
    @Test func theRouteFoundOnTheLoopIsTheOneItsHandlerRuns() async throws {
        let herald = try TestHerald()
        var ids: [String] = []
        for name in ["First", "Second"] {
            let created = try await herald.request("POST", "/api/v1/campaigns", json: [
                "name": .string(name), "notification": ["title": "Hello", "body": "World"], "topics": ["news"],
            ])
            ids.append(try #require(created.json?["id"]?.stringValue))
        }
        for round in 0..<3 {
            for (index, id) in ids.enumerated() {
                let got = try await herald.request("GET", "/api/v1/campaigns/\(id)")
                #expect(got.status == 200)
                #expect(got.json?["id"]?.stringValue == id && got.json?["name"]?.stringValue == ["First", "Second"][index], "round \(round)")
                let head = try await herald.request("HEAD", "/api/v1/campaigns/\(id)")
                #expect(head.status == 200 && head.data.isEmpty)
                #expect(head.header("Content-Length") == String(got.data.count))
            }
        }
        #expect(try await herald.request("GET", "/api/v1/campaigns/00000000-0000-4000-8000-000000000000").status == 404)
        #expect(try await herald.request("PATCH", "/healthz").status == 405)
    }
}

import Foundation
import HeraldJSON
import Testing

/// The devices REST API over real sockets: what an app's backend and a tool see.
@Suite(.serialized) final class DevicesAPITests {
    let herald: TestHerald

    init() throws {
        herald = try TestHerald()
    }

    static func token(_ n: Int) -> String { "device-\(n)-" + String(repeating: "a", count: 140) }

    @Test func devicesAreRegisteredOnceListedByFilterAndPagedByCursor() async throws {
        let first = try await herald.request("PUT", "/api/v1/devices/\(Self.token(1))", json: ["platform": "android", "language": "fa_ir"])
        #expect(first.status == 201)
        #expect(first.json?["language"] == "fa-IR")
        let again = try await herald.request("PUT", "/api/v1/devices/\(Self.token(1))", json: ["platform": "android", "language": "fa"])
        #expect(again.status == 200)
        for n in 2...3 {
            #expect(try await herald.request("PUT", "/api/v1/devices/\(Self.token(n))", json: ["platform": "ios", "language": "he"]).status == 201)
        }
        let persian = try await herald.request("GET", "/api/v1/devices?language=fa")
        #expect(persian.json?["items"]?.arrayValue?.compactMap { $0["token"]?.stringValue } == [Self.token(1)])

        let page = try await herald.request("GET", "/api/v1/devices?platform=ios&limit=1")
        let cursor = try #require(page.json?["next_cursor"]?.stringValue)
        let rest = try await herald.request("GET", "/api/v1/devices?platform=ios&limit=1&cursor=\(cursor)")
        let seen = [page, rest].flatMap { $0.json?["items"]?.arrayValue?.compactMap { $0["token"]?.stringValue } ?? [] }
        #expect(Set(seen) == [Self.token(2), Self.token(3)])
    }

    /// PostgreSQL text cannot hold NUL: a query naming one is the caller's mistake (400, which
    /// parameter), never a 422 from the store.
    @Test func aQueryParameterHoldingNULIsRefusedByName() async throws {
        for query in ["cursor=ab%00cd", "q=%00", "language=fa%00"] {
            let refused = try await herald.request("GET", "/api/v1/devices?\(query)")
            #expect(refused.status == 400, "\(query)")
            let error = refused.json?["errors"]?.arrayValue?.first
            #expect(error?["code"] == "nul_character", "\(query)")
            #expect(error?["path"]?.stringValue == String(query.prefix { $0 != "=" }), "\(query)")
        }
        // Nor can a token: one holding NUL is simply not registered.
        #expect(try await herald.request("GET", "/api/v1/devices/ab%00cd").status == 404)
        #expect(try await herald.request("DELETE", "/api/v1/devices/ab%00cd").status == 404)
        let unknown = try await herald.request("GET", "/api/v1/devices?colour=red")
        #expect(unknown.status == 400)
        #expect(unknown.json?["errors"]?.arrayValue?.first?["code"] == "unknown_parameter")
    }
}

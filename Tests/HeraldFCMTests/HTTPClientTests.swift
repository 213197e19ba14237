import HeraldFCM
import HeraldTestSupport
import FCMEmulator
import Testing

@Suite struct HTTPClientTests {
    @Test func readsTheStatusHeadersAndBodyOfTheFinalResponse() throws {
        let server = try StubServer { request in
            .respond(EmulatorResponse(status: 429, headers: [("Retry-After", "7"), ("X-Echo", request.method)], body: request.body), delay: nil)
        }
        defer { server.stop() }
        let response = try CurlHTTPClient().perform(HTTPClientRequest(
            method: "PUT", url: "http://127.0.0.1:\(server.port)/x", body: Array(String(repeating: "b", count: 3000).utf8))).get()
        #expect(response.status == 429)
        #expect(response.header("retry-after") == "7")
        #expect(response.header("X-ECHO") == "PUT")
        #expect(response.body.count == 3000)
    }

    @Test func reusesConnectionsWithinAndAcrossCalls() throws {
        let server = try StubServer { _ in .respond(EmulatorResponse(status: 200, body: Array("ok".utf8)), delay: nil) }
        defer { server.stop() }
        let client = CurlHTTPClient()
        let requests = (0..<200).map { _ in HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/", body: [1, 2, 3]) }
        let first = client.perform(requests, concurrency: 4)
        #expect(first.allSatisfy { (try? $0.get().status) == 200 })
        #expect(server.acceptedConnections <= 4)
        let second = client.perform(requests, concurrency: 4)
        #expect(second.allSatisfy { (try? $0.get().status) == 200 })
        #expect(server.acceptedConnections <= 4)
    }
}

import HeraldFCM
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
}

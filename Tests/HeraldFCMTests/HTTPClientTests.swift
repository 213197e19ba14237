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

@Suite struct PrivateAddressTests {
    @Test func loopbackPrivateLinkLocalAndMappedAddressesAreRefusedPublicOnesNot() {
        #expect(PrivateAddress.reason([127, 0, 0, 1]) == "a loopback address")
        #expect(PrivateAddress.reason([10, 1, 2, 3]) == "a private network address")
        #expect(PrivateAddress.reason([172, 16, 0, 1]) == "a private network address")
        #expect(PrivateAddress.reason([172, 32, 0, 1]) == nil)
        #expect(PrivateAddress.reason([192, 168, 1, 1]) == "a private network address")
        #expect(PrivateAddress.reason([169, 254, 169, 254])?.contains("link-local") == true)
        #expect(PrivateAddress.reason([100, 64, 0, 1]) == "a carrier-grade NAT address")
        #expect(PrivateAddress.reason([0, 0, 0, 0]) != nil && PrivateAddress.reason([224, 0, 0, 1]) != nil)
        #expect(PrivateAddress.reason([8, 8, 8, 8]) == nil && PrivateAddress.reason([142, 250, 74, 10]) == nil)
        var loopback6 = [UInt8](repeating: 0, count: 16)
        loopback6[15] = 1
        #expect(PrivateAddress.reason(loopback6) == "a loopback address")
        #expect(PrivateAddress.reason([0xFD] + [UInt8](repeating: 0, count: 15)) == "a private (unique local) address")
        #expect(PrivateAddress.reason([0xFE, 0x80] + [UInt8](repeating: 0, count: 14)) == "a link-local address")
        let mapped = [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 1]
        #expect(PrivateAddress.reason(mapped) == "a loopback address")
        #expect(PrivateAddress.reason([0x20, 0x01, 0x48, 0x60] + [UInt8](repeating: 0, count: 11) + [0x88]) == nil)
    }

    @Test func aClientThatRefusesPrivateAddressesNeverConnectsToOne() throws {
        let server = try StubServer { _ in .respond(EmulatorResponse(status: 200), delay: nil) }
        defer { server.stop() }
        let client = CurlHTTPClient()
        let url = "http://localhost:\(server.port)/"
        let refused = client.perform(HTTPClientRequest(method: "GET", url: url, refusePrivateAddresses: true))
        guard case .failure(let error) = refused else { Issue.record("connected to \(url)"); return }
        #expect(error.message.contains("loopback address"), "\(error)")
        #expect(server.acceptedConnections == 0)
        // The same request allowed reaches it.
        #expect((try? client.perform(HTTPClientRequest(method: "GET", url: url)).get().status) == 200)
    }

    @Test func aResponseLongerThanTheLimitIsKeptUpToItAndTheRestLeftUnread() throws {
        let server = try StubServer { request in
            .respond(EmulatorResponse(status: request.target == "/teapot" ? 418 : 200, body: [UInt8](repeating: 0x61, count: 1_000_000)), delay: nil)
        }
        defer { server.stop() }
        let client = CurlHTTPClient()
        let response = try client.perform(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(server.port)/", maxResponseBytes: 65_536)).get()
        #expect(response.status == 200 && response.body.count == 65_536 && response.bodyTruncated)
        // Another status is read as well; a body within the limit is whole.
        let teapot = try client.perform(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(server.port)/teapot", maxResponseBytes: 10)).get()
        #expect(teapot.status == 418 && teapot.body.count == 10 && teapot.bodyTruncated)
        let whole = try client.perform(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(server.port)/", maxResponseBytes: 2_000_000)).get()
        #expect(whole.body.count == 1_000_000 && !whole.bodyTruncated)
    }
}

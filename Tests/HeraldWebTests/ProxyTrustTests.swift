import HeraldHTTP
import Testing
@testable import HeraldWeb

/// Forwarded headers count only behind a proxy Herald is told to trust: otherwise any client
/// could claim another address (rate limits, the audit log) or another host (image URLs).
@Suite struct ProxyTrustTests {
    static func request(_ headers: [(String, String)], peer: String = "198.51.100.9:5000") -> HTTPRequest {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name, value) }
        return HTTPRequest(method: .get, target: "/", headers: fields, body: [], remoteAddress: peer)
    }

    @Test func untrustedForwardedHeadersAreIgnored() {
        let trust = ProxyTrust(trustForwardedHeaders: false)
        let request = Self.request([("Host", "herald.example.com"), ("X-Forwarded-For", "203.0.113.7"), ("X-Forwarded-Host", "evil.example")])
        #expect(trust.clientAddress(request) == "198.51.100.9")
        #expect(trust.host(request) == "herald.example.com")
    }

    @Test func aTrustedProxysLastEntryAndHostAreTaken() {
        let trust = ProxyTrust(trustForwardedHeaders: true)
        let request = Self.request([("Host", "10.0.0.5:8080"), ("X-Forwarded-For", "192.0.2.1, 203.0.113.7"), ("X-Forwarded-Host", "herald.example.com")])
        #expect(trust.clientAddress(request) == "203.0.113.7")
        #expect(trust.host(request) == "herald.example.com")
    }

    @Test func peerAddressesLoseTheirPort() {
        #expect(ProxyTrust.address(withoutPort: "[::1]:5000") == "::1")
        #expect(ProxyTrust.address(withoutPort: "127.0.0.1:40000") == "127.0.0.1")
        #expect(ProxyTrust.address(withoutPort: "::1") == "::1")
    }
}

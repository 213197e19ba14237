import FCMEmulator
import FCMMessage
import Foundation
import HeraldFCM
import HeraldJSON
import HeraldTestSupport
import Testing

/// The sender over TLS to a server with a self-signed certificate: it sends (token and message)
/// only when its CA file names that certificate, and otherwise fails saying which trust store
/// refused the server. The server offers no HTTP/2, so the exchange falls back to HTTP/1.1.
@Suite struct SenderTLSTests {
    let message: JSON = ["topic": "news", "notification": ["title": "Over TLS", "body": "Trusted by the CA file"]]

    @Test func sendsWhenTheCAFileNamesTheServersCertificate() throws {
        let harness = try EmulatorHarness()
        let certificate = try SelfSignedCertificate(keys: TestKeys.other)
        let server = try StubServer(tls: certificate, handler: harness.emulator.handle)
        defer { server.stop() }
        let http = CurlHTTPClient(caFile: certificate.pemPath)
        let (sender, _) = try harness.sender(baseURL: "https://127.0.0.1:\(server.port)", http: http)

        let outcome = sender.send(message)
        #expect(outcome.name != nil, "\(String(describing: outcome.error))")
        #expect(harness.emulator.messages().count == 1)
        let listing = try http.perform(HTTPClientRequest(method: "GET", url: "https://127.0.0.1:\(server.port)/emulator/messages")).get()
        #expect(listing.status == 200)
        #expect(listing.httpVersion == .http1_1, "a TLS server without h2 in ALPN is spoken to in HTTP/1.1")
    }

    @Test func failsClearlyWithoutACAFile() throws {
        let harness = try EmulatorHarness()
        let certificate = try SelfSignedCertificate(keys: TestKeys.other)
        let server = try StubServer(tls: certificate, handler: harness.emulator.handle)
        defer { server.stop() }
        let (sender, _) = try harness.sender(baseURL: "https://127.0.0.1:\(server.port)")

        let error = try #require(sender.send(message).error)
        #expect(error.code == .authentication)
        #expect(error.message.contains("https://127.0.0.1:\(server.port)/token"))
        #expect(error.message.contains("SSL certificate problem"))
        #expect(error.message.contains("not signed by a CA in the system's trust store"))
        #expect(harness.emulator.messages().isEmpty)

        // The send endpoint itself, past the token: the same refusal, as a transport error.
        let direct = CurlHTTPClient().perform(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/v1/projects/herald-test/messages:send"))
        guard case .failure(let failure) = direct else { Issue.record("an untrusted server was answered"); return }
        #expect(failure.curlCode == 60)
    }

    @Test func failsClearlyWhenTheCAFileNamesAnotherCertificate() throws {
        let harness = try EmulatorHarness()
        let certificate = try SelfSignedCertificate(keys: TestKeys.other)
        let stranger = try SelfSignedCertificate(keys: TestKeys.primary)
        let server = try StubServer(tls: certificate, handler: harness.emulator.handle)
        defer { server.stop() }
        let (sender, _) = try harness.sender(baseURL: "https://127.0.0.1:\(server.port)", http: CurlHTTPClient(caFile: stranger.pemPath))

        let error = try #require(sender.send(message).error)
        #expect(error.message.contains("not signed by a CA in \(stranger.pemPath)"))
        #expect(harness.emulator.messages().isEmpty)
    }

    @Test func aCAFileMustHoldACertificate() throws {
        let certificate = try SelfSignedCertificate(keys: TestKeys.other)
        try CAFile.check(certificate.pemPath)
        #expect(throws: CAFileError.unreadable("/nonexistent/ca.pem")) { try CAFile.check("/nonexistent/ca.pem") }
        let notPEM = certificate.pemPath + ".txt"
        try "not a certificate".write(toFile: notPEM, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: notPEM) }
        #expect(throws: CAFileError.noCertificate(notPEM)) { try CAFile.check(notPEM) }
    }
}

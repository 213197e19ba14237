import FCMEmulator
@testable import HeraldApp
import HeraldFCM
import HeraldJSON
import HeraldTestSupport
import Testing

/// HERALD_FCM_CA_FILE end to end: the sender Herald builds from its environment reaches an FCM
/// endpoint with a self-signed certificate only when the variable names that certificate.
@Suite struct FCMCAFileTests {
    let message: JSON = ["topic": "news", "notification": ["title": "Through a proxy", "body": "Its CA is trusted"]]

    func sender(_ sink: EmulatorSink, _ server: StubServer, caFile: String?) throws -> FCMSender {
        var environment = sink.environment
        environment["HERALD_FCM_BASE_URL"] = "https://127.0.0.1:\(server.port)"
        environment["HERALD_FCM_CA_FILE"] = caFile
        return try #require(try SenderSetup.make(try HeraldConfiguration(environment: environment), log: Log(minimum: .error)))
    }

    @Test func sendsOnlyWhenTheVariableNamesTheServersCertificate() throws {
        let sink = try EmulatorSink()
        let certificate = try SelfSignedCertificate(keys: try RSAKeyPair.generate())
        let server = try StubServer(tls: certificate, handler: sink.emulator.handle)
        defer { server.stop() }

        let refused = try #require(try sender(sink, server, caFile: nil).send(message).error)
        #expect(refused.code == .transport)
        #expect(refused.message.contains("not signed by a CA in the system's trust store"), "\(refused.message)")
        #expect(sink.emulator.messages().isEmpty)

        let outcome = try sender(sink, server, caFile: certificate.pemPath).send(message)
        #expect(outcome.name != nil, "\(String(describing: outcome.error))")
        #expect(sink.emulator.messages().count == 1)
    }
}

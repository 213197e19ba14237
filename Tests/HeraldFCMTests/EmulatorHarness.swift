import FCMEmulator
import HeraldFCM
import HeraldHTTP
import HeraldJSON

/// An emulator serving on HeraldHTTP on 127.0.0.1, on an ephemeral port, and senders pointed at it.
final class EmulatorHarness: Sendable {
    let emulator: FCMEmulator
    private let server: HTTPServer

    init(_ configure: (inout FCMEmulatorConfiguration) -> Void = { _ in }) throws {
        var configuration = FCMEmulatorConfiguration(
            projectID: "herald-test", trustedPublicKeyPEM: TestKeys.primary.publicKeyPEM,
            trustedClientEmail: "sender@herald-test.iam.gserviceaccount.com")
        configure(&configuration)
        let emulator = try FCMEmulator(configuration: configuration)
        self.emulator = emulator
        server = try emulator.start(configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0, eventLoops: 2, handlerThreads: 8))
    }

    deinit {
        server.shutdown()
        server.wait()
    }

    var baseURL: String { "http://127.0.0.1:\(server.port)" }

    /// A sender with a service account for `keys`, whose token endpoint is this emulator's (or
    /// the one at `baseURL`, such as a TLS server in front of this emulator).
    func sender(
        keys: RSAKeyPair = TestKeys.primary,
        policy: RetryPolicy = RetryPolicy(),
        timeout: Duration = .seconds(10),
        baseURL: String? = nil,
        http: CurlHTTPClient = CurlHTTPClient()
    ) throws -> (FCMSender, ServiceAccountTokenProvider) {
        let baseURL = baseURL ?? self.baseURL
        let account = try TestKeys.serviceAccount(keys, tokenURI: "https://oauth2.googleapis.com/token")
        let tokens = ServiceAccountTokenProvider(account: account, tokenURI: baseURL + "/token", http: http)
        let configuration = FCMConfiguration(projectID: account.projectID, baseURL: baseURL, requestTimeout: timeout, retryPolicy: policy)
        return (FCMSender(configuration: configuration, credentials: tokens, http: http), tokens)
    }
}

import FCMEmulator
import Foundation
import HeraldHTTP

/// The FCM emulator on 127.0.0.1 with an ephemeral port, and the environment that points a
/// Herald at it (a throwaway service-account key the emulator trusts).
final class TestEmulator: Sendable {
    let emulator: FCMEmulator
    let server: HTTPServer
    let keyPath: String

    init(_ configure: (inout FCMEmulatorConfiguration) -> Void = { _ in }) throws {
        keyPath = FileManager.default.temporaryDirectory.appendingPathComponent("herald-test-key-\(UUID().uuidString).json").path
        var configuration = try FCMEmulatorConfiguration.development(
            projectID: "herald-test", tokenURI: "http://127.0.0.1:1/token", writingKeyFileTo: keyPath)
        configure(&configuration)
        emulator = try FCMEmulator(configuration: configuration)
        server = try emulator.start(host: "127.0.0.1", port: 0)
    }

    deinit {
        server.shutdown()
        server.wait()
        try? FileManager.default.removeItem(atPath: keyPath)
    }

    var baseURL: String { "http://127.0.0.1:\(server.port)" }

    /// Herald's variables for sending through this emulator.
    var environment: [String: String] {
        ["HERALD_SERVICE_ACCOUNT_KEY": keyPath, "HERALD_FCM_BASE_URL": baseURL, "HERALD_OAUTH_TOKEN_URL": baseURL + "/token"]
    }
}

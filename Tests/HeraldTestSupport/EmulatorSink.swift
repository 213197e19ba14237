import FCMEmulator
import Foundation
import HeraldFCM
import HeraldHTTP
import HeraldJSON
#if canImport(Glibc)
import Glibc
#endif

/// An FCM emulator on 127.0.0.1 (port 0) with a service-account key file it trusts, and the
/// environment that points a Herald (in this process or spawned) at it.
public final class EmulatorSink: Sendable {
    public let emulator: FCMEmulator
    public let server: HTTPServer
    public let keyPath: String

    /// `keyProject` other than the emulator's makes every send a permanent 403 PERMISSION_DENIED.
    /// `unregistered` tokens are answered 404 UNREGISTERED (and NOT_FOUND by the Instance ID API).
    /// `otherSenders` are answered 403 SENDER_ID_MISMATCH, `throttled` 429 QUOTA_EXCEEDED (a device's own rate).
    public init(faults: FaultInjection = FaultInjection(), handlerThreads: Int = 16, keyProject: String? = nil,
                unregistered: Set<String> = [], otherSenders: Set<String> = [], throttled: Set<String> = [],
                configure: (inout FCMEmulatorConfiguration) -> Void = { _ in }) throws {
        keyPath = NSTemporaryDirectory() + "herald-test-key-\(UUID().uuidString.prefix(8)).json"
        // The port is not known yet; Herald is given the real token URL by HERALD_OAUTH_TOKEN_URL.
        var configuration = try FCMEmulatorConfiguration.development(
            projectID: "herald-test", tokenURI: "http://127.0.0.1/token", writingKeyFileTo: keyPath, keys: try Self.keys.get())
        configuration.faults = faults
        configuration.unregisteredTokens = unregistered
        configuration.otherSendersTokens = otherSenders
        configuration.throttledTokens = throttled
        configure(&configuration)
        configuration.messageCapacity = 200_000
        if let keyProject {
            var key = try JSON.parse(Array(try Data(contentsOf: URL(fileURLWithPath: keyPath))))
            if case .object(var object) = key { object["project_id"] = .string(keyProject); key = .object(object) }
            try Data(key.serialized()).write(to: URL(fileURLWithPath: keyPath))
        }
        emulator = try FCMEmulator(configuration: configuration)
        server = try emulator.start(configuration: HTTPServer.Configuration(
            host: "127.0.0.1", port: 0, eventLoops: 2, handlerThreads: handlerThreads))
    }

    /// One key pair for every sink of the run: each sink still writes its own key file.
    private static let keys = Result { try RSAKeyPair.generate() }

    /// Stops taking requests at once; the wait for those in flight (a slow fault holds one for
    /// seconds) is not the test's.
    deinit {
        server.shutdown()
        let server = server, keyPath = keyPath
        inTheBackground {
            server.wait()
            unlink(keyPath)
        }
    }

    public var baseURL: String { "http://127.0.0.1:\(server.port)" }

    /// What a Herald needs to send here.
    public var environment: [String: String] {
        ["HERALD_SERVICE_ACCOUNT_KEY": keyPath, "HERALD_FCM_BASE_URL": baseURL, "HERALD_OAUTH_TOKEN_URL": baseURL + "/token"]
    }

    /// A sender of this key, for engines a test builds itself.
    public func sender() throws -> FCMSender {
        try sender(topicAPI: .v1)
    }

    /// A sender of this key that subscribes to topics through `topicAPI`.
    public func sender(topicAPI: TopicAPI, retryPolicy: RetryPolicy = RetryPolicy()) throws -> FCMSender {
        let account = try ServiceAccount(contentsOfFile: keyPath)
        return FCMSender(configuration: FCMConfiguration(projectID: account.projectID, baseURL: baseURL, retryPolicy: retryPolicy, topicAPI: topicAPI),
                         serviceAccount: account, tokenURI: baseURL + "/token")
    }

    /// How many times each accepted message (serialized) was received.
    public func receivedCounts() -> [String: Int] {
        emulator.messages().reduce(into: [:]) { $0[$1.message.serializedString(), default: 0] += 1 }
    }
}

import FCMEmulator
import Foundation
import HeraldFCM
import HeraldHTTP
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
@testable import HeraldApp
@testable import HeraldWeb

#if canImport(Glibc)
import Glibc
#endif

/// An FCM emulator on 127.0.0.1 (port 0) with a service-account key file it trusts, and the
/// environment that points a Herald (in this process or spawned) at it.
final class EmulatorSink: Sendable {
    let emulator: FCMEmulator
    let server: HTTPServer
    let keyPath: String

    /// `keyProject` other than the emulator's makes every send a permanent 403 PERMISSION_DENIED.
    init(faults: FaultInjection = FaultInjection(), handlerThreads: Int = 16, keyProject: String? = nil) throws {
        keyPath = NSTemporaryDirectory() + "herald-test-key-\(UUID().uuidString.prefix(8)).json"
        // The port is not known yet; Herald is given the real token URL by HERALD_OAUTH_TOKEN_URL.
        var configuration = try FCMEmulatorConfiguration.development(
            projectID: "herald-test", tokenURI: "http://127.0.0.1/token", writingKeyFileTo: keyPath)
        configuration.faults = faults
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

    deinit {
        server.shutdown()
        server.wait()
        unlink(keyPath)
    }

    var baseURL: String { "http://127.0.0.1:\(server.port)" }

    /// What a Herald needs to send here.
    var environment: [String: String] {
        ["HERALD_SERVICE_ACCOUNT_KEY": keyPath, "HERALD_FCM_BASE_URL": baseURL, "HERALD_OAUTH_TOKEN_URL": baseURL + "/token"]
    }

    /// A sender of this key, for engines a test builds itself.
    func sender() throws -> FCMSender {
        let account = try ServiceAccount(contentsOfFile: keyPath)
        return FCMSender(configuration: FCMConfiguration(projectID: account.projectID, baseURL: baseURL),
                         serviceAccount: account, tokenURI: baseURL + "/token")
    }

    /// How many times each accepted message (serialized) was received.
    func receivedCounts() -> [String: Int] {
        emulator.messages().reduce(into: [:]) { $0[$1.message.serializedString(), default: 0] += 1 }
    }
}

/// Reads and arranges the outbox of a test database directly.
struct OutboxProbe {
    let connection: PostgresConnection

    init(url: String) throws { connection = try PostgresConnection(url: url) }

    func close() { connection.close() }

    /// Every planned request body (serialized the way the emulator's messages are) with its status.
    func deliveries() throws -> [(body: String, status: String, attempts: Int, sentBy: String?)] {
        try connection.query("SELECT body, status, attempts, sent_by FROM deliveries ORDER BY id").map { row in
            let body = try JSON.parse(try row.decode(String.self, at: 0)).serializedString()
            return (body, try row.decode(String.self, at: 1), try row.decode(Int.self, at: 2), try row.decode(String?.self, at: 3))
        }
    }

    func count(_ sql: StaticString) throws -> Int {
        try connection.query("\(literal: sql)").first.map { try $0.decode(Int.self, at: 0) } ?? 0
    }

    /// Inserts `count` campaigns, each to `topics` topics (one request per 5), due at `dueAt`,
    /// straight into the table as the schedule API would leave them.
    func insertScheduledCampaigns(_ count: Int, topics: Int, dueAt: Date, label: String) throws {
        let contents = (0..<count).map { index -> String in
            let names = (0..<topics).map { JSON.string("t\(index)-\($0)") }
            let campaign: JSON = ["name": .string("\(label) \(index)"),
                                  "notification": ["title": .string("\(label) \(index)"), "body": "Hello"],
                                  "topics": .array(names)]
            return campaign.serializedString()
        }
        _ = try connection.execute("""
            INSERT INTO campaigns (name, status, content, next_run_at)
            SELECT content::jsonb ->> 'name', 'scheduled', content::jsonb, \(dueAt) FROM unnest(\(contents)) AS c(content)
            """)
    }
}

/// Polls `condition` every 50 ms until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}

/// A campaign to `topics` with a one-off schedule or none.
func campaignJSON(name: String, topics: [String], schedule: JSON? = nil) -> JSON {
    var object: JSONObject = ["name": .string(name), "notification": ["title": .string(name), "body": "Hello from Herald"],
                              "topics": .array(topics.map { .string($0) })]
    if let schedule { object["schedule"] = schedule }
    return .object(object)
}

/// "YYYY-MM-DDTHH:MM:SS" of `date` in UTC, for a one-off schedule in the "UTC" zone.
func utcLocal(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
    return formatter.string(from: date)
}

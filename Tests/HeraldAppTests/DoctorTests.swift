import HeraldApp
import HeraldPostgres
import HeraldTestSupport
import Foundation
import Testing

/// `herald doctor` says what is wrong in plain words: a missing database, a bad key, and a healthy setup.
@Suite struct DoctorTests {
    static func configuration(_ variables: [String: String]) throws -> HeraldConfiguration {
        try HeraldConfiguration(environment: ["HERALD_MIGRATIONS_DIR": TestDatabase.repositoryRoot + "/Migrations"].merging(variables) { $1 })
    }

    @Test func aMissingDatabaseIsSaidPlainly() throws {
        let checks = Doctor.run(try Self.configuration(["DATABASE_URL": "postgresql://herald@127.0.0.1:1/none?connect_timeout=2"]))
        #expect(checks.first { $0.name == "database" }?.outcome == .problem)
        #expect(checks.first { $0.name == "database" }?.detail.contains("cannot reach the database") == true)
        #expect(checks.first { $0.name == "migrations" }?.outcome == .skipped)
        #expect(checks.first { $0.name == "service-account key" }?.detail.contains("none configured") == true)
    }

    @Test func aBadKeyIsSaidPlainly() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-bad-key-\(UUID().uuidString).json").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(#"{"type": "service_account", "project_id": "p"}"#.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let checks = Doctor.run(try Self.configuration(["DATABASE_URL": try TestDatabase.create(), "HERALD_SERVICE_ACCOUNT_KEY": path]))
        let key = try #require(checks.first { $0.name == "service-account key" })
        #expect(key.outcome == .problem)
        #expect(key.detail.contains("client_email") || key.detail.contains("private_key"))
        #expect(checks.first { $0.name == "migrations" }?.detail.contains("herald migrate") == true)
    }

    /// A running instance included: the doctor lists its background services and names the leader.
    @Test func aHealthySetupPassesEveryCheck() async throws {
        let emulator = try EmulatorSink()
        let database = try TestDatabase.create()
        let configuration = try Self.configuration(["DATABASE_URL": database].merging(emulator.environment) { $1 })
        let connection = try PostgresConnection(url: database)
        try Migrator(directory: configuration.database.migrationsDirectory).migrate(connection)
        connection.close()
        #expect(Doctor.run(configuration).first { $0.name == "background services" }?.outcome == .skipped, "no instance runs yet")
        let app = try HeraldApplication(configuration: configuration, log: Log(minimum: .error))
        app.startWorkers()
        defer { app.stopWorkers(waiting: true) }
        var checks: [Doctor.Check] = []
        #expect(try await eventually(timeout: .seconds(60)) {
            checks = Doctor.run(configuration)
            // The first report may come before the lease is taken: wait for one that names the leader.
            return checks.first { $0.name == "background services" }.map { $0.outcome == .ok && $0.detail.contains("census-fold") } == true
        })
        #expect(checks.map(\.outcome) == Array(repeating: .ok, count: 7), "\(checks)")
        #expect(checks.first { $0.name == "topic API" }?.detail.contains("FCM v1 topicSubscriptions") == true)
        let background = try #require(checks.first { $0.name == "background services" }).detail
        #expect(background.contains("1 instance running; leader: \(app.instanceOwner)"), "\(background)")
        for service in ["scheduler", "run-closing", "census-fold", "stale-devices", "delivery-retention", "webhook-dispatch", "webhook-retention",
                        "idempotency-expiry", "leader-lease", "notifications", "instance-report"] {
            #expect(background.contains("    \(service) ["), "\(service) missing from \(background)")
        }
        #expect(emulator.emulator.messages().isEmpty, "a dry run delivers nothing")
    }

    /// The Instance ID fallback works today, so it is a warning, not a problem: it names the
    /// turndown and the projects that cannot use it at all.
    @Test func theInstanceIDFallbackIsWarnedOfWithItsTurndown() throws {
        let checks = Doctor.run(try Self.configuration(["DATABASE_URL": "postgresql://herald@127.0.0.1:1/none?connect_timeout=2",
                                                        "HERALD_FCM_TOPIC_API": "instance-id"]))
        let topics = try #require(checks.first { $0.name == "topic API" })
        #expect(topics.outcome == .warning)
        #expect(topics.detail.contains("29 September 2027") && topics.detail.contains("1 October 2026") && topics.detail.contains("HERALD_FCM_TOPIC_API=v1"))
    }
}

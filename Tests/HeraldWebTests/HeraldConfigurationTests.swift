import Foundation
@testable import HeraldApp
import HeraldFCM
import HeraldTestSupport
import HeraldWeb
import Testing

/// The configuration's defaults are the ones the operator's guide's table (deploy/README.md,
/// "Every setting") promises, every setting the code reads is in that guide and in
/// deploy/release/herald.env.example, and a value Herald cannot use is refused with the
/// variable's name, the value and what was expected.
@Suite struct HeraldConfigurationTests {
    static func defaults() throws -> [String: String] {
        let c = try HeraldConfiguration(environment: [:])
        let web = try WebSettings(environment: [:])
        var settings = [
            "DATABASE_URL": c.database.url, "HERALD_DB_POOL_SIZE": String(c.database.poolSize),
            "HERALD_MIGRATIONS_DIR": c.database.migrationsDirectory, "HERALD_MIGRATE_ON_START": String(c.database.migrateOnStart),
            "HERALD_DB_PREPARED_STATEMENTS": String(c.database.preparedStatements),
            "HERALD_FCM_BASE_URL": c.fcm.baseURL,
            "HERALD_SCHEDULER": String(c.delivery.schedulerEnabled), "HERALD_DELIVERY_WORKERS": String(c.delivery.workers),
            "HERALD_DELIVERY_BATCH_SIZE": String(c.delivery.batchSize), "HERALD_DELIVERY_LEASE_SECONDS": String(c.delivery.leaseSeconds),
            "HERALD_SCHEDULER_POLL_SECONDS": String(c.delivery.pollSeconds), "HERALD_AUDIENCE_BUCKETS": String(c.delivery.audienceBuckets),
            "HERALD_APPROVALS": String(c.delivery.approvalsRequired), "HERALD_FCM_RATE_PER_MINUTE": String(c.delivery.ratePerMinute),
            "HERALD_TOPIC_FANOUTS_AT_ONCE": String(c.delivery.fanOutsAtOnce),
            "HERALD_SESSION_IDLE_SECONDS": String(c.accounts.sessionIdleSeconds),
            "HERALD_SESSION_LIFETIME_SECONDS": String(c.accounts.sessionLifetimeSeconds),
            "HERALD_SIGNIN_MAX_FAILURES": String(c.accounts.signInMaxFailures), "HERALD_SIGNIN_WINDOW_SECONDS": String(c.accounts.signInWindowSeconds),
        ]
        let webhooks: [String: String] = [
            "HERALD_WEBHOOK_THREADS": String(c.webhooks.threads), "HERALD_WEBHOOK_TIMEOUT_SECONDS": String(c.webhooks.timeoutSeconds),
            "HERALD_WEBHOOK_FIRST_RETRY_MS": String(c.webhooks.firstRetryMilliseconds),
            "HERALD_WEBHOOK_MAX_RETRY_MS": String(c.webhooks.maxRetryMilliseconds), "HERALD_WEBHOOK_MAX_ATTEMPTS": String(c.webhooks.maxAttempts),
            "HERALD_WEBHOOK_PRIVATE_ADDRESSES": String(c.webhooks.privateAddresses),
            "HERALD_WEBHOOK_RETENTION_DAYS": String(c.webhooks.retentionDays),
            "HERALD_FCM_DATA_URL": c.fcm.dataURL, "HERALD_DELIVERY_DATA_HOURS": String(c.fcm.deliveryDataHours),
            "HERALD_FCM_TOPIC_API": c.fcm.topicAPI.rawValue,
        ]
        settings.merge(webhooks) { old, _ in old }
        // The web module's own, read from the same environment.
        let server: [String: String] = [
            "HERALD_HOST": web.host, "HERALD_PORT": String(web.port), "HERALD_PUBLIC_DIR": web.publicDirectory,
            "HERALD_HANDLER_THREADS": String(web.handlerThreads), "HERALD_HANDLER_QUEUE_LIMIT": String(web.handlerQueueLimit),
            "HERALD_MAX_BODY_BYTES": String(web.maxBodyBytes), "HERALD_MAX_IMPORT_BYTES": String(web.maxImportBytes),
            "HERALD_COOKIE_SECURE": String(web.cookieSecure), "HERALD_TRUST_FORWARDED_FOR": String(web.trustForwardedFor),
        ]
        settings.merge(server) { old, _ in old }
        return settings
    }

    /// Every environment variable named in Herald's sources (`"HERALD_…"`, `"DATABASE_URL"`,
    /// `"GOOGLE_APPLICATION_CREDENTIALS"` as string literals): the settings the code reads.
    static func settingsReadByTheCode() throws -> Set<String> {
        let sources = TestDatabase.repositoryRoot + "/Sources"
        let name = /"(HERALD_[A-Z0-9_]+|DATABASE_URL|GOOGLE_APPLICATION_CREDENTIALS)"/
        var names: Set<String> = []
        let files = FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for match in text.matches(of: name) { names.insert(String(match.1)) }
        }
        return names
    }

    @Test func everySettingTheCodeReadsIsInTheGuideAndTheEnvExample() throws {
        let names = try Self.settingsReadByTheCode()
        #expect(names.count >= 38 && names.contains("HERALD_PUBLIC_URL") && names.contains("HERALD_FCM_CA_FILE"))
        let guide = try String(contentsOfFile: TestDatabase.repositoryRoot + "/deploy/README.md", encoding: .utf8)
        let example = try String(contentsOfFile: TestDatabase.repositoryRoot + "/deploy/release/herald.env.example", encoding: .utf8)
        let exampleNames = Set(example.split(separator: "\n").compactMap { line -> String? in
            let setting = line.hasPrefix("#") ? line.dropFirst() : line[...]
            guard let equals = setting.firstIndex(of: "="), setting[..<equals].allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" })
            else { return nil }
            return String(setting[..<equals])
        })
        for name in names.sorted() {
            #expect(guide.contains("`\(name)`"), "deploy/README.md does not mention \(name)")
            #expect(exampleNames.contains(name), "deploy/release/herald.env.example lacks \(name) (as \(name)=… or #\(name)=…)")
        }
    }

    @Test func theGuidesTableStatesTheDefaults() throws {
        let readme = try String(contentsOfFile: TestDatabase.repositoryRoot + "/deploy/README.md", encoding: .utf8)
        let row = /^\| `([A-Z_]+)` \| `([^`]*)`/
        var checked = 0
        for line in readme.split(separator: "\n") {
            guard let match = try row.firstMatch(in: String(line)), let expected = try Self.defaults()[String(match.1)] else { continue }
            #expect(String(match.2) == expected, "deploy/README.md says \(match.1) defaults to \(match.2); the code says \(expected)")
            checked += 1
        }
        #expect(checked == (try Self.defaults()).count, "deploy/README.md's table lacks some variables")
        #expect((try HeraldConfiguration(environment: [:])).fcm.serviceAccountKeyPath == nil)
        #expect((try WebSettings(environment: [:])).eventLoops == nil)
    }

    @Test func anUnusableValueNamesTheVariable() {
        #expect(throws: ConfigurationError(variable: "HERALD_PORT", value: "80000", expected: "a whole number from 0 to 65535")) {
            try WebSettings(environment: ["HERALD_PORT": "80000"])
        }
        #expect(throws: ConfigurationError(variable: "HERALD_COOKIE_SECURE", value: "maybe", expected: "true or false")) {
            try WebSettings(environment: ["HERALD_COOKIE_SECURE": "maybe"])
        }
        #expect((try? WebSettings(environment: ["HERALD_COOKIE_SECURE": "on"]))?.cookieSecure == true)
        #expect(throws: ConfigurationError(variable: "HERALD_PUBLIC_URL", value: "herald.example.com",
                                           expected: "an http:// or https:// address such as https://herald.example.com")) {
            try WebSettings(environment: ["HERALD_PUBLIC_URL": "herald.example.com"])
        }
        #expect((try? WebSettings(environment: ["HERALD_PUBLIC_URL": "https://herald.example.com/"]))?.publicURL == "https://herald.example.com")
        #expect(throws: ConfigurationError(variable: "HERALD_FCM_TOPIC_API", value: "iid", expected: "one of v1, instance-id")) {
            try HeraldConfiguration(environment: ["HERALD_FCM_TOPIC_API": "iid"])
        }
        #expect((try? HeraldConfiguration(environment: ["HERALD_FCM_TOPIC_API": "instance-id"]))?.fcm.topicAPI == .instanceID)
    }

    @Test func aDeliveryRoundIsInFlightAtOnceUpToAConnectionsStreams() {
        var rounds = DeliveryEngine.Configuration()
        rounds.deviceBatchSize = 16
        rounds.batchSize = (try? HeraldConfiguration(environment: ["HERALD_DELIVERY_BATCH_SIZE": "64"]))?.delivery.batchSize ?? 0
        #expect(rounds.sendConcurrency == 64)
        rounds.batchSize = 1000
        #expect(rounds.sendConcurrency == 100, "HTTP/2 streams of one connection")
        // A round to devices (256 by default) goes out as many at once as a connection carries.
        rounds.batchSize = 32
        rounds.deviceBatchSize = (try? HeraldConfiguration(environment: [:]))?.delivery.deviceBatchSize ?? 0
        #expect(rounds.sendConcurrency == 100)
    }

    @Test func aCAFileThatCannotBeUsedIsRefusedAtStartUpNamingTheVariable() throws {
        let missing = try HeraldConfiguration(environment: ["HERALD_FCM_CA_FILE": "/nonexistent/proxy-ca.pem"])
        #expect(missing.fcm.caFile == "/nonexistent/proxy-ca.pem")
        #expect(throws: ConfigurationError(variable: "HERALD_FCM_CA_FILE", value: "/nonexistent/proxy-ca.pem",
                                           expected: "a readable PEM file of CA certificates (cannot read the CA file /nonexistent/proxy-ca.pem)")) {
            try SenderSetup.httpClient(missing.fcm)
        }
        let notPEM = NSTemporaryDirectory() + "herald-not-a-ca-\(UUID().uuidString).pem"
        try "not a certificate".write(toFile: notPEM, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: notPEM) }
        let wrong = try HeraldConfiguration(environment: ["HERALD_FCM_CA_FILE": notPEM])
        #expect(throws: ConfigurationError.self) { try SenderSetup.httpClient(wrong.fcm) }
        #expect(try SenderSetup.httpClient(HeraldConfiguration(environment: [:]).fcm).caFile == nil)
    }
}

import Foundation
import HeraldPostgres
import Testing

/// The database the integration tests run against, from `HERALD_TEST_DATABASE_URL`.
enum TestDatabase {
    struct NotConfigured: Error, CustomStringConvertible {
        var description: String {
            """
            HERALD_TEST_DATABASE_URL is not set: these tests need a real PostgreSQL. Start one with
                deploy/dev/postgres start .test-data/pg 55432
            and run the tests with
                HERALD_TEST_DATABASE_URL=postgresql://herald@127.0.0.1:55432/herald swift test --filter HeraldPostgresTests
            """
        }
    }

    /// The configured URL; throws (failing the test loudly) when it is not set.
    static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["HERALD_TEST_DATABASE_URL"], !url.isEmpty else {
            throw NotConfigured()
        }
        return url
    }

    /// `url` with a session setting added, for URLs and conninfo strings alike.
    static func url(_ url: String, settingSearchPath schema: String) -> String {
        if url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") {
            let options = "options=-c%20search_path%3D\(schema)"
            return url + (url.contains("?") ? "&" : "?") + options
        }
        return url + " options='-c search_path=\(schema)'"
    }
}

/// A schema of its own for one test, so tests run in parallel without seeing each other's
/// tables. Connections made through `url` or `connect()` use it as their search_path.
final class TestSchema: Sendable {
    let name: String
    let url: String
    private let baseURL: String

    init() throws {
        baseURL = try TestDatabase.url()
        name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        url = TestDatabase.url(baseURL, settingSearchPath: name)
        let admin = try PostgresConnection(url: baseURL)
        defer { admin.close() }
        try admin.executeScript("CREATE SCHEMA \(name)")
    }

    /// A connection whose search_path is this schema.
    func connect() throws -> PostgresConnection {
        try PostgresConnection(url: url)
    }

    /// Drops the schema and everything in it.
    func drop() {
        guard let admin = try? PostgresConnection(url: baseURL) else { return }
        defer { admin.close() }
        _ = try? admin.executeScript("DROP SCHEMA IF EXISTS \(name) CASCADE")
    }
}

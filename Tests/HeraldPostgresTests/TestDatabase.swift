import Foundation
import HeraldPostgres
import HeraldTestSupport
import Testing

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

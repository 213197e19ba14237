import Foundation
import HeraldPostgres

/// A fresh database for one test suite on the PostgreSQL that `deploy/dev/test` started, so suites
/// running in parallel never see each other's campaigns.
enum TestDatabase {
    /// The server's URL from `HERALD_TEST_DATABASE_URL`; without it the tests cannot mean anything.
    static var serverURL: String {
        guard let url = ProcessInfo.processInfo.environment["HERALD_TEST_DATABASE_URL"], !url.isEmpty else {
            fatalError("HERALD_TEST_DATABASE_URL is not set: run the tests with deploy/dev/test, which starts PostgreSQL")
        }
        return url
    }

    /// Creates an empty database and returns its URL.
    static func create() throws -> String {
        let name = "herald_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased())"
        let admin = try PostgresConnection(url: serverURL)
        defer { admin.close() }
        // A database name cannot be a bind parameter; this one is made of hex digits only.
        try admin.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)", binds: []))
        return url(serverURL, database: name)
    }

    /// `url` with its database (the path) replaced.
    static func url(_ url: String, database: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return "\(url) dbname=\(database)" }
        let rest = url[schemeEnd.upperBound...]
        let query = rest.firstIndex(of: "?").map { String(rest[$0...]) } ?? ""
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        return "\(url[..<schemeEnd.upperBound])\(authority)/\(database)\(query)"
    }

    /// The repository's root, found from this file's place in it.
    static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
    }
}

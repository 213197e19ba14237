import Foundation
import HeraldPostgres

/// The PostgreSQL the integration tests run against, from `HERALD_TEST_DATABASE_URL`
/// (`deploy/dev/test` starts one and sets it).
public enum TestDatabase {
    public struct NotConfigured: Error, CustomStringConvertible {
        public var description: String {
            """
            HERALD_TEST_DATABASE_URL is not set: these tests need a real PostgreSQL. Run them with
                deploy/dev/test
            or start one with
                deploy/dev/postgres start .test-data/pg 55432
            and run
                HERALD_TEST_DATABASE_URL=postgresql://herald@127.0.0.1:55432/herald swift test
            """
        }
    }

    /// The configured URL; throws (failing the test loudly) when it is not set.
    public static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["HERALD_TEST_DATABASE_URL"], !url.isEmpty else {
            throw NotConfigured()
        }
        return url
    }

    /// `url` with a session setting added, for URLs and conninfo strings alike.
    public static func url(_ url: String, settingSearchPath schema: String) -> String {
        if url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") {
            let options = "options=-c%20search_path%3D\(schema)"
            return url + (url.contains("?") ? "&" : "?") + options
        }
        return url + " options='-c search_path=\(schema)'"
    }

    /// Creates an empty database of its own (for a suite that needs whole tables to itself) and
    /// returns its URL.
    public static func create() throws -> String {
        let server = try url()
        let name = "herald_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased())"
        let admin = try PostgresConnection(url: server)
        defer { admin.close() }
        // A database name cannot be a bind parameter; this one is made of hex digits only.
        try admin.executeScript("CREATE DATABASE \(name)")
        return url(server, database: name)
    }

    /// `url` with its database (the path of a URL, `dbname` of a conninfo string) replaced.
    public static func url(_ url: String, database: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return "\(url) dbname=\(database)" }
        let rest = url[schemeEnd.upperBound...]
        let query = rest.firstIndex(of: "?").map { String(rest[$0...]) } ?? ""
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        return "\(url[..<schemeEnd.upperBound])\(authority)/\(database)\(query)"
    }

    /// The repository's root, found from this file's place in it.
    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }
}

import Foundation
@testable import HeraldApp
import HeraldPostgres
import HeraldTestSupport

/// Herald's services over a fresh database of their own, with no socket: the application layer
/// tested as the web module and the command line call it.
final class TestApplication: Sendable {
    let app: HeraldApplication
    let databaseURL: String

    init(environment: [String: String] = [:], log: Log = Log(minimum: .error)) throws {
        databaseURL = try TestDatabase.create()
        var variables = ["DATABASE_URL": databaseURL, "HERALD_MIGRATIONS_DIR": TestDatabase.repositoryRoot + "/Migrations"]
        variables.merge(environment) { _, new in new }
        app = try HeraldApplication(configuration: try HeraldConfiguration(environment: variables), log: log)
        try app.migrate()
    }

    var pool: PostgresPool { app.database.pool }

    /// Runs one SQL statement written by the test (fault injection, inspection).
    func execute(_ sql: String) throws {
        try pool.withConnection { try $0.executeScript(sql) }
    }

    func count(_ sql: String) throws -> Int {
        try pool.withConnection { try $0.query(PostgresQuery(unsafeSQL: sql)).map { try $0.decode(Int.self, at: 0) }[0] }
    }
}

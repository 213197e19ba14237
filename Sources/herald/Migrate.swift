import ArgumentParser
import HeraldApp
import HeraldPostgres

struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply the missing database migrations from HERALD_MIGRATIONS_DIR (default: ./Migrations).")

    func run() throws {
        let configuration = try loadConfiguration()
        let connection: PostgresConnection
        do {
            connection = try configuration.database.connect()
        } catch {
            print("herald migrate: cannot connect to the database: \(error)")
            throw ExitCode.failure
        }
        defer { connection.close() }
        print("Migrations folder: \(configuration.database.migrationsDirectory)")
        do {
            let applied = try Migrator(directory: configuration.database.migrationsDirectory).migrate(connection) { waited in
                print("herald migrate: waiting for another instance's migration (\(waited) s so far)")
            }
            if applied.isEmpty {
                print("The database is up to date.")
            } else {
                for migration in applied { print("applied \(migration)") }
            }
        } catch {
            print("herald migrate: \(error)")
            throw ExitCode.failure
        }
    }
}

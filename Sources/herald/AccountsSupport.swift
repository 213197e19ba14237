#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import HeraldApp
import HeraldCore
import HeraldPostgres

extension Role: ExpressibleByArgument {}
extension APIKeyScope: ExpressibleByArgument {}

/// The account service over a one-connection pool, after applying missing migrations (unless
/// HERALD_MIGRATE_ON_START=false), so the first admin can be made before the first `serve`.
func accountService() throws -> (AccountService, PostgresPool) {
    let (database, pool) = try preparedDatabase()
    return (AccountService(database: database), pool)
}

/// The database over a one-connection pool, with missing migrations applied (unless
/// HERALD_MIGRATE_ON_START=false), for the commands that act on it directly.
func preparedDatabase() throws -> (Database, PostgresPool) {
    let configuration = try loadConfiguration()
    let pool = configuration.database.pool(maxConnections: 1, acquireTimeout: .seconds(10))
    do {
        if configuration.database.migrateOnStart {
            _ = try pool.withConnection { connection in
                try Migrator(directory: configuration.database.migrationsDirectory).migrate(connection) { waited in
                    print("herald: waiting for another instance's migration (\(waited) s so far)")
                }
            }
        }
    } catch {
        print("herald: cannot prepare the database: \(error)")
        throw ExitCode.failure
    }
    return (Database(pool: pool), pool)
}

/// Who runs the command, for the audit log: `cli:<login name>`.
func commandLineActor() -> Actor {
    let name = getpwuid(getuid()).flatMap { $0.pointee.pw_name }.map { String(cString: $0) }
        ?? processEnvironment()["USER"] ?? "unknown"
    return Actor(name: "cli:\(name)")
}

/// The id a command was given; text that is no id is "not found", as an id no one has.
func identified<ID: UUIDIdentifier>(_ text: String, _ missing: (String) -> Missing) throws(AppError) -> ID {
    guard let id = ID(text) else { throw .notFound(missing(text)) }
    return id
}

/// Runs an account action and turns its failures into a plain message and exit code 1.
func reportingFailures<T>(_ action: () throws -> T) throws -> T {
    do {
        return try action()
    } catch let error as AppError {
        print("herald: \(error.message)")
        throw ExitCode.failure
    } catch {
        print("herald: \(error)")
        throw ExitCode.failure
    }
}

/// Reads a password: from the terminal without echo (asked twice), or the first line of stdin
/// when stdin is not a terminal (for scripts: `printf '%s\n' "$PW" | herald users create …`).
func readPassword(prompt: String) throws -> String {
    guard isatty(STDIN_FILENO) == 1 else {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw CommandFailure("no password on standard input")
        }
        return line
    }
    let first = try readHidden(prompt)
    let second = try readHidden("Again: ")
    guard first == second else { throw CommandFailure("the two passwords differ") }
    return first
}

private func readHidden(_ prompt: String) throws -> String {
    print(prompt, terminator: "")
    fflush(nil)  // all output streams: the prompt must show before echo is turned off
    var saved = termios()
    guard tcgetattr(STDIN_FILENO, &saved) == 0 else { throw CommandFailure("cannot read the terminal's settings") }
    var silent = saved
    silent.c_lflag &= ~tcflag_t(ECHO)
    guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) == 0 else { throw CommandFailure("cannot turn off echo") }
    defer {
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        print("")
    }
    return readLine(strippingNewline: true) ?? ""
}

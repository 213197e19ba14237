#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import FCMMessage
import Foundation
import HeraldApp

/// `herald api-keys …`: keys for internal tools and apps.
struct APIKeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "api-keys", abstract: "Create, list and revoke API keys.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a key and print it once; only its hash is kept.")
        @Option(help: "Who or what uses the key.") var name: String
        @Option(help: "viewer, editor, publisher or admin.") var role: Role
        @Option(help: "full (everything the role allows), events (may only post events), devices (may only register devices) or sends (may only make one-call sends).") var scope: APIKeyScope = .full
        @Flag(help: "With approvals on (HERALD_APPROVALS), the key may still send inline transactional one-call messages (audited, shown in the list).")
        var inlineSends = false

        func run() throws {
            let (service, pool) = try accountService()
            defer { pool.close() }
            let created = try reportingFailures {
                try service.createKey(name: name, role: role, scope: scope, inlineSends: inlineSends, by: commandLineActor())
            }
            print(created.key)
            printError("Key \(created.record.name) (\(created.record.role.rawValue), \(created.record.scope.rawValue)) id \(created.record.id). "
                       + "Copy it now: it cannot be shown again.")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (prefixes only).")
        func run() throws {
            let (service, pool) = try accountService()
            defer { pool.close() }
            for key in try reportingFailures({ try service.listKeys() }) {
                func time(_ date: Date) -> String { RFC3339.utc(secondsSince1970: date.timeIntervalSince1970) }
                let state = key.revokedAt.map { "revoked \(time($0))" } ?? "last used \(key.lastUsedAt.map(time) ?? "never")"
                let inline = key.inlineSends ? ", sends inline messages with approvals on" : ""
                print("\(key.id)  \(key.prefix)…  \(key.role.rawValue.padding(9))  \(key.scope.rawValue.padding(6))  \(key.name)  (\(state)\(inline))")
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key; it stops working at once.")
        @Option(help: "The key's id (see `herald api-keys list`).") var id: String
        func run() throws {
            let (service, pool) = try accountService()
            defer { pool.close() }
            let key = try reportingFailures { try service.revokeKey(id: identified(id, Missing.apiKey), by: commandLineActor()) }
            print("Revoked \(key.name) (\(key.prefix)…).")
        }
    }
}

/// A line on standard error, so that standard output holds only the key.
func printError(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

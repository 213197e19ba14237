import ArgumentParser
import HeraldApp

/// `herald users …`: the first admin, and user management without the browser.
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Create and list users (the first admin is made here).",
        subcommands: [Create.self, List.self, SetRole.self, SetPassword.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a user. The password is read from the terminal (not echoed) or from standard input, never an argument.")
        @Option(help: "The user's e-mail address (their sign-in name).") var email: String
        @Option(help: "viewer, editor, publisher or admin.") var role: Role

        func run() throws {
            let (service, pool) = try accountService()
            defer { pool.close() }
            let password = try readPassword(prompt: "Password for \(email) (at least \(AccountService.minimumPasswordLength) characters): ")
            let user = try reportingFailures {
                try service.createUser(email: email, role: role, password: password, by: commandLineActor())
            }
            print("Created \(user.email) (\(user.role.rawValue)), id \(user.id).")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users.")
        func run() throws {
            let (service, pool) = try accountService()
            defer { pool.close() }
            for user in try reportingFailures({ try service.listUsers() }) {
                print("\(user.id)  \(user.role.rawValue.padding(9))  \(user.disabled ? "disabled" : "active  ")  \(user.email)")
            }
        }
    }

    struct SetRole: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set-role", abstract: "Change a user's role.")
        @Option(help: "The user's id (see `herald users list`).") var id: String
        @Option(help: "viewer, editor, publisher or admin.") var role: Role
        func run() throws {
            let (service, pool) = try accountService()
            defer { pool.close() }
            let user = try reportingFailures {
                try service.updateUser(id: identified(id, Missing.user), role: role, disabled: nil, password: nil, by: commandLineActor())
            }
            print("\(user.email) is now \(user.role.rawValue).")
        }
    }

    struct SetPassword: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-password", abstract: "Set a new password (read like `create` does); ends the user's sessions.")
        @Option(help: "The user's id (see `herald users list`).") var id: String
        func run() throws {
            let (service, pool) = try accountService()
            defer { pool.close() }
            let password = try readPassword(prompt: "New password: ")
            let user = try reportingFailures {
                try service.updateUser(id: identified(id, Missing.user), role: nil, disabled: nil, password: password, by: commandLineActor())
            }
            print("Password changed for \(user.email); their sessions have ended.")
        }
    }
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}

import ArgumentParser
import HeraldApp

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the setup: database, migrations, service-account key, access token, a validate-only send and the topic API.")

    func run() throws {
        let checks = Doctor.run(try loadConfiguration())
        for check in checks {
            let mark = switch check.outcome { case .ok: "ok     "; case .warning: "WARNING"; case .problem: "PROBLEM"; case .skipped: "skipped" }
            print("\(mark)  \(check.name): \(check.detail)")
        }
        // A warning works today: it is said, and the setup still passes.
        if checks.contains(where: { $0.outcome == .problem || $0.outcome == .skipped }) { throw ExitCode.failure }
        print(checks.contains { $0.outcome == .warning } ? "Everything works; read the warnings." : "Everything looks right.")
    }
}

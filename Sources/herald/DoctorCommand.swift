import ArgumentParser
import HeraldApp

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the setup: database, migrations, service-account key, access token and a validate-only send.")

    func run() throws {
        let checks = Doctor.run(try loadConfiguration())
        for check in checks {
            let mark = switch check.outcome { case .ok: "ok     "; case .problem: "PROBLEM"; case .skipped: "skipped" }
            print("\(mark)  \(check.name): \(check.detail)")
        }
        if checks.contains(where: { $0.outcome != .ok }) { throw ExitCode.failure }
        print("Everything looks right.")
    }
}

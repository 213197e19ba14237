import ArgumentParser
import FCMEmulator
import HeraldHTTP

struct EmulatorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm-emulator",
        abstract: "Run a local stand-in for FCM's v1 API and Google's token endpoint (development and tests).",
        discussion: """
            Writes a throwaway service-account key that the emulator trusts to --service-account; point
            Herald at it with HERALD_SERVICE_ACCOUNT_KEY and HERALD_FCM_BASE_URL=http://HOST:PORT.
            Received messages are listed at GET /emulator/messages (the last --capacity of them) and
            counted at GET /emulator/counts (all of them, by analytics label).
            """)

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on.") var port = 9099
    @Option(help: "Firebase project id the emulator answers for.") var project = "herald-dev"
    @Option(help: "Where to write the service-account key the emulator trusts.") var serviceAccount: String
    @Option(help: "Share of sends answered 429 QUOTA_EXCEEDED with Retry-After (0 to 1).") var quotaExceeded = 0.0
    @Option(help: "Share of sends answered 503 UNAVAILABLE (0 to 1).") var unavailable = 0.0
    @Option(help: "Share of sends answered 500 INTERNAL (0 to 1).") var internalError = 0.0
    @Option(help: "Share of sends answered slowly (0 to 1).") var slow = 0.0
    @Option(help: "Messages kept for GET /emulator/messages (every one is counted).") var capacity = 10_000

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535 (0: any free port), not \(port)") }
        guard capacity >= 1 else { throw ValidationError("--capacity must be at least 1") }
        for (name, share) in [("quota-exceeded", quotaExceeded), ("unavailable", unavailable), ("internal-error", internalError), ("slow", slow)]
        where !(0...1).contains(share) {
            throw ValidationError("--\(name) must be between 0 and 1")
        }
    }

    func run() throws {
        var configuration = try FCMEmulatorConfiguration.development(
            projectID: project, tokenURI: "http://\(host):\(port)/token", writingKeyFileTo: serviceAccount)
        configuration.faults.quotaExceeded = quotaExceeded
        configuration.faults.unavailable = unavailable
        configuration.faults.internalError = internalError
        configuration.faults.slow = slow
        configuration.messageCapacity = capacity
        let emulator = try FCMEmulator(configuration: configuration)
        let server = try emulator.start(host: host, port: port)
        print("FCM emulator for project \(project) on http://\(host):\(server.port); trusted key in \(serviceAccount)")
        try HTTPServer.shutdownOnSignals([server])
        server.wait()
    }
}

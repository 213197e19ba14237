import ArgumentParser

/// `herald`: the campaign composer for Firebase Cloud Messaging.
@main
struct Herald: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "herald",
        abstract: "Herald: compose, schedule and send Firebase Cloud Messaging campaigns.",
        discussion: """
            Configuration comes from environment variables (DATABASE_URL, HERALD_HOST, HERALD_PORT, …);
            deploy/README.md lists them all with their defaults.
            """,
        version: HeraldVersion.description,
        subcommands: [Serve.self, Migrate.self, DoctorCommand.self, UsersCommand.self, APIKeysCommand.self, DevicesCommand.self, EmulatorCommand.self,
                      FCMLoadCommand.self])
}

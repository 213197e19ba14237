import ArgumentParser
import HeraldApp
import HeraldWeb
import HeraldHTTP

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the REST API and the composer (applies missing migrations first unless HERALD_MIGRATE_ON_START=false).")

    func run() throws {
        let configuration = try loadConfiguration()
        let log = Log()
        let server: HeraldServer
        do {
            server = try HeraldServer(configuration: configuration, log: log)
            try server.start()
        } catch {
            log.error("could not start: \(error)")
            throw ExitCode.failure
        }
        try HTTPServer.shutdownOnSignals([server.httpServer])
        server.wait()
        log.info("stopped")
    }
}

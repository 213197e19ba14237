import Glibc
import Testing
@testable import HeraldHTTP

@Suite struct SignalShutdownTests {
    /// Installs the process-wide handler once; afterwards a first SIGINT/SIGTERM in this test
    /// process only stops servers, a second one exits.
    @Test func sigtermStartsAGracefulShutdown() throws {
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, log: { _ in }), handler: { _ in HTTPResponse(status: 200) })
        try server.start()
        try HTTPServer.shutdownOnSignals([server])
        #expect(throws: SystemCallError.self) { try HTTPServer.shutdownOnSignals([server]) }
        let client = try TestClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        kill(getpid(), SIGTERM)
        let started = monotonicNanoseconds()
        server.wait()
        #expect(monotonicNanoseconds() - started < 5_000_000_000)
        #expect(try client.isClosedByServer(), "the idle keep-alive connection is closed")
    }
}

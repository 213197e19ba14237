import Foundation
import HeraldJSON
import Testing

/// PostgreSQL goes away under a running Herald and comes back: requests fail cleanly with 503
/// meanwhile and succeed again afterwards, without restarting Herald.
@Suite struct DatabaseOutageTests {
    /// Runs `deploy/dev/postgres` with these arguments and returns what it printed.
    @discardableResult
    static func postgres(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestDatabase.repositoryRoot + "/deploy/dev/postgres")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "deploy/dev/postgres \(arguments) failed"])
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.timeLimit(.minutes(2)))
    func requestsGet503DuringAnOutageAndSucceedAfterIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("herald-outage-\(UUID().uuidString)").path
        let port = String(56000 + Int.random(in: 0..<900))
        let url = try Self.postgres(["start", folder, port])
        defer {
            _ = try? Self.postgres(["stop", folder])
            try? FileManager.default.removeItem(atPath: folder)
        }
        let herald = try TestHerald(databaseURL: url)
        let campaign = CampaignsAPITests.campaign()
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaign)
        #expect(created.status == 201)
        let id = try #require(created.json?["id"]?.stringValue)

        try Self.postgres(["stop", folder])
        let during = try await herald.request("GET", "/api/v1/campaigns/\(id)")
        #expect(during.status == 503)
        #expect(during.json?["code"] == "database_unavailable")
        #expect(during.header("Retry-After") != nil)
        #expect(try await herald.request("GET", "/readyz").status == 503)
        #expect(try await herald.request("GET", "/healthz").status == 200)

        try Self.postgres(["start", folder, port])
        let after = try await herald.request("GET", "/api/v1/campaigns/\(id)")
        #expect(after.status == 200)
        #expect(after.json?["id"]?.stringValue == id)
        #expect(try await herald.request("POST", "/api/v1/campaigns", json: campaign).status == 201)
    }
}

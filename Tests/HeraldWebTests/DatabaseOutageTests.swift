import HeraldJSON
import HeraldTestSupport
import Testing

/// PostgreSQL goes away under a running Herald and comes back: requests fail cleanly with 503
/// meanwhile and succeed again afterwards, without restarting Herald.
@Suite struct DatabaseOutageTests {
    @Test(.timeLimit(.minutes(2)))
    func requestsGet503DuringAnOutageAndSucceedAfterIt() async throws {
        let cluster = try ThrowawayCluster()
        defer { cluster.destroy() }
        let herald = try TestHerald(databaseURL: cluster.url)
        let campaign = CampaignsAPITests.campaign()
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaign)
        #expect(created.status == 201)
        let id = try #require(created.json?["id"]?.stringValue)

        try cluster.stop()
        let during = try await herald.request("GET", "/api/v1/campaigns/\(id)")
        #expect(during.status == 503)
        #expect(during.json?["code"] == "database_unavailable")
        #expect(during.header("Retry-After") != nil)
        #expect(try await herald.request("GET", "/readyz").status == 503)
        #expect(try await herald.request("GET", "/healthz").status == 200)

        try cluster.start()
        let after = try await herald.request("GET", "/api/v1/campaigns/\(id)")
        #expect(after.status == 200)
        #expect(after.json?["id"]?.stringValue == id)
        #expect(try await herald.request("POST", "/api/v1/campaigns", json: campaign).status == 201)
    }
}

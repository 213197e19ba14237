import FCMEmulator
import Foundation
import HeraldCore
import HeraldJSON
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// What a key may read and what counts as the same request: a `sends`-scope key reads only the
/// sends it made, and an `Idempotency-Key` is matched on the request's JSON value, not its bytes.
@Suite(.serialized) struct KeyBoundsTests {
    static func sendsKey(_ herald: TestHerald, _ name: String) throws -> [String: String] {
        let key = try herald.server.application.database.pool.withConnection { connection in
            try APIKeyStore().create(name: name, role: .publisher, scope: .sends, createdBy: "test", on: connection).key
        }
        return ["Authorization": "Bearer \(key)"]
    }

    @Test(.timeLimit(.minutes(3)))
    func aSendsKeyReadsOnlyTheSendsItMade() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment)
        let orders = try Self.sendsKey(herald, "orders"), support = try Self.sendsKey(herald, "support")
        let body: JSON = ["message": ["notification": ["title": "Shipped"]], "to": [["token": "private-token-1"]]]
        let made = try await herald.request("POST", "/api/v1/sends", json: body, headers: orders.merging(["Idempotency-Key": "o-1"]) { $1 })
        let id = try #require(made.json?["id"]?.stringValue, "\(made.json as Any)")
        #expect(try await herald.request("GET", "/api/v1/sends/\(id)", headers: orders).status == 200)
        // Another key of the scope is told there is no such send, as for an id that never was.
        let other = try await herald.request("GET", "/api/v1/sends/\(id)", headers: support)
        #expect(other.status == 404 && !String(decoding: other.data, as: UTF8.self).contains("private-token-1"))
        let never = try await herald.request("GET", "/api/v1/sends/\(UUID().uuidString.lowercased())", headers: support)
        #expect(never.status == 404 && never.json?["code"] == other.json?["code"])
        // Its own sends it reads; a full key (the test's admin) reads every send.
        let own = try await herald.request("POST", "/api/v1/sends", json: body, headers: support.merging(["Idempotency-Key": "s-1"]) { $1 })
        let ownID = try #require(own.json?["id"]?.stringValue)
        #expect(try await herald.request("GET", "/api/v1/sends/\(ownID)", headers: support).status == 200)
        #expect(try await herald.request("GET", "/api/v1/sends/\(ownID)", headers: orders).status == 404)
        #expect(try await herald.request("GET", "/api/v1/sends/\(id)").status == 200)
        // A campaign's run is no send of a scoped key's either.
        let campaign = try #require(try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Topic", topics: ["news"])).json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(campaign)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        let runs = try await herald.request("GET", "/api/v1/campaigns/\(campaign)/runs")
        if let run = runs.json?["items"]?.arrayValue?.first?["id"]?.stringValue {
            #expect(try await herald.request("GET", "/api/v1/sends/\(run)", headers: orders).status == 404)
        }
    }

    /// The same request re-indented with its members in another order is the same request: the
    /// first answer again, as it was stored (the send has gone on since), nothing sent twice.
    @Test(.timeLimit(.minutes(3)))
    func idempotencyComparesTheJSONValueAndReplaysTheStoredAnswer() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment)
        let orders = try Self.sendsKey(herald, "orders")
        let compact = Array(#"{"message":{"notification":{"title":"Hi","body":"Shipped"}},"to":[{"token":"value-token-1"}]}"#.utf8)
        let reordered = Array("""
            {
              "to": [ { "token": "value-token-1" } ],
              "message": { "notification": { "body": "Shipped", "title": "Hi" } }
            }
            """.utf8)
        func post(_ body: [UInt8], _ path: String = "/api/v1/sends", key: String, auth: [String: String]) async throws -> TestHerald.Response {
            try await herald.request("POST", path, body: body, headers: auth.merging(["Idempotency-Key": key, "Content-Type": "application/json"]) { $1 })
        }
        let first = try await post(compact, key: "value-1", auth: orders)
        #expect(first.status == 202, "\(first.json as Any)")
        let id = try #require(first.json?["id"]?.stringValue)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/sends/\(id)", headers: orders).json?["status"]?.stringValue == "sent"
        })
        let again = try await post(reordered, key: "value-1", auth: orders)
        #expect(again.status == 202 && again.json == first.json && again.json?["status"] == "sending", "\(again.json as Any)")
        #expect(sink.emulator.messages().count == 1)
        // Another value under the key is refused, however it is written.
        let other = Array(#"{"to":[{"token":"value-token-1"}],"message":{"notification":{"body":"Shipped","title":"Hi!"}}}"#.utf8)
        let refused = try await post(other, key: "value-1", auth: orders)
        #expect(refused.status == 422 && refused.json?["code"] == "idempotency_key_reused")

        // A campaign create the same way.
        let campaign = Array(#"{"name":"Spring","notification":{"title":"Sale","body":"Now"},"topics":["news"]}"#.utf8)
        let campaignAgain = Array("{ \"topics\" : [ \"news\" ],\n \"notification\" : { \"body\" : \"Now\", \"title\" : \"Sale\" }, \"name\" : \"Spring\" }".utf8)
        let created = try await post(campaign, "/api/v1/campaigns", key: "spring", auth: [:])
        let replayed = try await post(campaignAgain, "/api/v1/campaigns", key: "spring", auth: [:])
        #expect(created.status == 201 && replayed.status == 201 && replayed.json?["id"] == created.json?["id"])
        #expect(replayed.header("Idempotent-Replayed") == "true")
    }
}

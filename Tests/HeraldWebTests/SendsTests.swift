import FCMEmulator
import Foundation
import HeraldCore
import HeraldJSON
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// One-call sends (`POST /api/v1/sends`) as an order service makes them: once per
/// Idempotency-Key, personalised per recipient, within the shared quota, reported like any run.
@Suite(.serialized) struct SendsTests {
    static func send(_ herald: TestHerald, _ body: JSON, key: String?, auth: [String: String] = [:]) async throws -> TestHerald.Response {
        var headers = auth
        if let key { headers["Idempotency-Key"] = key }
        return try await herald.request("POST", "/api/v1/sends", json: body, headers: headers)
    }

    @Test(.timeLimit(.minutes(3)))
    func aRepeatedIdempotencyKeySendsOnceAndEachRecipientGetsItsOwnText() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment)
        let key = try herald.server.application.database.pool.withConnection { connection in
            try APIKeyStore().create(name: "orders", role: .publisher, scope: .sends, createdBy: "test", on: connection).key
        }
        let auth = ["Authorization": "Bearer \(key)"]
        let body: JSON = ["message": ["notification": ["title": "Hi {{first_name | default: \"there\"}}", "body": "Your order {{order | default: \"\"}} shipped"]],
                          "to": [["token": "order-token-1", "variables": ["first_name": "Ana", "order": "#1042"]], ["token": "order-token-2"]]]
        let first = try await Self.send(herald, body, key: "order-1042-shipped", auth: auth)
        #expect(first.status == 202, "\(first.json as Any)")
        let id = try #require(first.json?["id"]?.stringValue)
        #expect(first.json?["recipients"]?.arrayValue?.map { $0["status"]?.stringValue } == ["pending", "pending"])
        #expect(first.header("Location") == "/api/v1/sends/\(id)")
        // The same call again (a retry after a lost answer): the first answer, nothing sent twice.
        let again = try await Self.send(herald, body, key: "order-1042-shipped", auth: auth)
        #expect(again.status == 202 && again.json == first.json)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/sends/\(id)", headers: auth).json?["status"]?.stringValue == "sent"
        })
        let read = try #require(try await herald.request("GET", "/api/v1/sends/\(id)", headers: auth).json)
        #expect(read["recipients"]?.arrayValue?.allSatisfy { $0["status"]?.stringValue == "sent" && $0["message_name"]?.stringValue != nil } == true)
        let titles = sink.emulator.messages().map { "\($0.message["token"]?.stringValue ?? ""): \($0.message["notification"]?["title"]?.stringValue ?? "") / \($0.message["notification"]?["body"]?.stringValue ?? "")" }
        #expect(titles.sorted() == ["order-token-1: Hi Ana / Your order #1042 shipped", "order-token-2: Hi there / Your order  shipped"])
        // The same key with another body is refused; no key at all too.
        let reused = try await Self.send(herald, ["message": ["notification": ["title": "Other"]], "to": [["token": "order-token-3"]]],
                                         key: "order-1042-shipped", auth: auth)
        #expect(reused.status == 422 && reused.json?["code"]?.stringValue == "idempotency_key_reused")
        let keyless = try await Self.send(herald, body, key: nil, auth: auth)
        #expect(keyless.status == 400 && keyless.json?["code"]?.stringValue == "idempotency_key_required")
        // Bad input names the field, and sends nothing.
        let bad = try await Self.send(herald, ["message": ["notification": ["title": .string(String(repeating: "x", count: 1001))]],
                                               "to": [["token": "has space"], ["fid": "short"]]], key: "bad-1", auth: auth)
        #expect(bad.status == 422)
        let paths = Set(bad.json?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? [])
        #expect(paths == ["to[0].token", "to[1].fid"], "\(bad.json as Any)")
        let long = try await Self.send(herald, ["message": ["notification": ["title": .string(String(repeating: "x", count: 1001))]],
                                                "to": [["token": "order-token-4"]]], key: "bad-2", auth: auth)
        #expect(long.status == 422 && long.json?["errors"]?.arrayValue?.first?["path"]?.stringValue == "message.notification.title")
        #expect(sink.emulator.messages().count == 2)
        // The key may do nothing else, and a one-call send is not among the campaigns a marketer lists.
        #expect(try await herald.request("GET", "/api/v1/campaigns", headers: auth).status == 403)
        #expect(try await herald.request("GET", "/api/v1/campaigns").json?["items"]?.arrayValue?.isEmpty == true)
    }

    /// A thousand sends of one message each, from a saved campaign used as the template, made
    /// faster than the quota lets them out: they go at the project's rate, all reach FCM once, and
    /// the template's report counts every one.
    @Test(.timeLimit(.minutes(4)))
    func aThousandOneCallSendsHoldTheQuotaAndReachTheReport() async throws {
        let sink = try EmulatorSink(handlerThreads: 32)
        // 6,000 a minute (100 a second), in rounds of 20.
        let herald = try TestHerald(environment: sink.environment.merging([
            "HERALD_FCM_RATE_PER_MINUTE": "6000", "HERALD_DELIVERY_DEVICE_BATCH_SIZE": "20", "HERALD_DELIVERY_BATCH_SIZE": "20",
        ]) { _, new in new })
        let template = try #require(try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Order shipped", "notification": ["title": "Order {{order | default: \"\"}} shipped", "body": "It is on its way"],
            "tokens": ["template-token"]]).json?["id"]?.stringValue)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in stride(from: worker, to: 1000, by: 8) {
                        let response = try await Self.send(herald, ["campaign": .string(template),
                                                                   "to": [["token": .string("buyer-\(index)"), "variables": ["order": .string("#\(index)")]]]],
                                                           key: "order-\(index)")
                        guard response.status == 202 else { return response.status }
                    }
                    return 202
                }
            }
            for try await status in group { #expect(status == 202) }
        }
        #expect(try await eventually(timeout: .seconds(120)) {
            try await herald.request("GET", "/api/v1/campaigns/\(template)/report").json?["requests"]?["answered"]?.intValue == 1000
        })
        let report = try #require(try await herald.request("GET", "/api/v1/campaigns/\(template)/report").json)
        #expect(report["variants"]?.arrayValue?.first?["requests"]?["sent"]?.intValue == 1000)
        let received = sink.emulator.messages()
        #expect(received.count == 1000 && Set(received.compactMap { $0.message["token"]?.stringValue }).count == 1000)
        #expect(received.allSatisfy { message in
            let token = message.message["token"]?.stringValue ?? ""
            return message.message["notification"]?["title"]?.stringValue == "Order #\(token.dropFirst("buyer-".count)) shipped"
        })
        let times = sink.emulator.sendAttempts().map(\.receivedAt).sorted()
        var busiest = 0, start = 0
        for (end, time) in times.enumerated() {
            while times[start] < time - .seconds(1) { start += 1 }
            busiest = max(busiest, end - start + 1)
        }
        let took = times.first.map { $0.duration(to: times.last!) } ?? .zero
        // The rate and one round over it (the bucket's capacity), and the rounds in flight at FCM's side.
        #expect(busiest <= 100 + 20 + 2 * 20, "busiest second: \(busiest)")
        #expect(took >= .seconds(Double(1000 - 20) / 100 - 1), "1,000 messages at 100 a second took \(took)")
        print("one-call sends: 1,000 sends of one message each at 6,000 a minute: first to last \(took), busiest second \(busiest); report counts 1,000 sent")
    }
}

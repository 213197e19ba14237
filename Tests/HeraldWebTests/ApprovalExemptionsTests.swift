import FCMEmulator
import Foundation
@testable import HeraldApp
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing

/// With approvals on, nothing reaches a device that a second person did not approve, except what
/// an admin exempted on purpose: an inline one-call message goes out only from a key created with
/// `inline_sends`, and only when transactional. The exemption is audited and shown with the key.
@Suite(.serialized) struct ApprovalExemptionsTests {
    /// A Herald with approvals on, sending to an emulator, and a key of `role` made in its database.
    static func approving(keyNamed name: String, role: Role, scope: APIKeyScope = .full) throws -> (EmulatorSink, TestHerald, key: String) {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment.merging(["HERALD_APPROVALS": "on"]) { _, new in new })
        let key = try herald.server.application.database.pool.withConnection { connection in
            try APIKeyStore().create(name: name, role: role, scope: scope, createdBy: "test", on: connection).key
        }
        return (sink, herald, key)
    }

    @Test(.timeLimit(.minutes(3)))
    func anInlineSendNeedsAKeyAnAdminExemptedAndATransactionalMessage() async throws {
        let (sink, herald, plain) = try Self.approving(keyNamed: "crm", role: .publisher)
        // The admin (the harness's own session) makes the exempted key, as an operator would.
        let refusedFlag = try await herald.request("POST", "/api/v1/api-keys", json: ["name": "orders", "role": "publisher", "scope": "sends",
                                                                                     "inline_sends": "yes"])
        #expect(refusedFlag.status == 422 && refusedFlag.json?["errors"]?.arrayValue?.first?["path"] == "inline_sends")
        let created = try await herald.request("POST", "/api/v1/api-keys", json: ["name": "orders", "role": "publisher", "scope": "sends",
                                                                                 "inline_sends": true])
        #expect(created.status == 201 && created.json?["inline_sends"] == true)
        let exempt = try #require(created.json?["key"]?.stringValue)

        func send(_ key: String, transactional: Bool, idempotency: String) async throws -> TestHerald.Response {
            var message: JSON = ["notification": ["title": "Your order shipped"]]
            if transactional, case .object(var object) = message {
                object["delivery"] = ["transactional": true]
                message = .object(object)
            }
            return try await herald.request("POST", "/api/v1/sends", json: ["message": message, "to": [["token": "order-token-1"]]],
                                            headers: ["Authorization": "Bearer \(key)", "Idempotency-Key": idempotency])
        }
        // A publisher's key that no admin exempted: refused, naming the rule, and nothing is made.
        let unexempted = try await send(plain, transactional: true, idempotency: "a")
        #expect(unexempted.status == 409 && unexempted.json?["code"] == "approval_required", "\(unexempted.json as Any)")
        #expect(unexempted.json?["detail"]?.stringValue?.contains("inline_sends") == true)
        // The exempted key, with a marketing message: refused too (that goes through approval as a campaign).
        let marketing = try await send(exempt, transactional: false, idempotency: "b")
        #expect(marketing.status == 409 && marketing.json?["detail"]?.stringValue?.contains("transactional") == true)
        let runs = try herald.server.application.database.pool.withConnection {
            try $0.query("SELECT count(*) FROM runs").first?.decode(Int.self, at: 0) ?? -1
        }
        #expect(runs == 0)

        // The exempted key's transactional message goes out.
        let receipt = try await send(exempt, transactional: true, idempotency: "c")
        #expect(receipt.status == 202, "\(receipt.json as Any)")
        let id = try #require(receipt.json?["id"]?.stringValue)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/sends/\(id)", headers: ["Authorization": "Bearer \(exempt)"]).json?["status"] == "sent"
        })
        #expect(sink.emulator.messages().map { $0.message["token"]?.stringValue } == ["order-token-1"])

        // The exemption is visible with the key and in the audit log.
        let keys = try await herald.request("GET", "/api/v1/api-keys").json?["items"]?.arrayValue ?? []
        let exemptions = Dictionary(uniqueKeysWithValues: keys.compactMap { key in key["name"]?.stringValue.map { ($0, key["inline_sends"]) } })
        #expect(exemptions["orders"] == .bool(true) && exemptions["crm"] == .bool(false), "\(exemptions)")
        let audit = try await herald.request("GET", "/api/v1/audit?limit=50").json?["items"]?.arrayValue ?? []
        #expect(audit.contains { $0["action"] == "api_key.created" && $0["details"]?["inline_sends"] == true && $0["details"]?["name"] == "orders" })
    }

    /// With approvals on, a test message reaches only the devices an admin listed: an editor's
    /// test of a draft nobody approved to any other token is refused, naming each one, and sends
    /// nothing; the list is read by everyone, kept by admins, and each change is audited.
    @Test(.timeLimit(.minutes(3)))
    func aTestSendReachesOnlyTheTestDevicesAnAdminListed() async throws {
        let (sink, herald, editorKey) = try Self.approving(keyNamed: "marketer", role: .editor)
        let editor = ["Authorization": "Bearer \(editorKey)"]
        let phone = "ana-pixel:APA91b" + String(repeating: "p", count: 120), stranger = "stranger:APA91b" + String(repeating: "s", count: 120)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Never submitted", topics: ["news"]), headers: editor)
        let test = "/api/v1/campaigns/\(try #require(created.json?["id"]?.stringValue))/test"
        func paths(_ response: TestHerald.Response) -> [String] {
            response.json?["errors"]?.arrayValue?.compactMap { $0["code"] == "not_a_test_device" ? $0["path"]?.stringValue : nil } ?? []
        }

        let unlisted = try await herald.request("POST", test, json: ["tokens": .array([.string(phone), .string(stranger)])], headers: editor)
        #expect(unlisted.status == 422 && paths(unlisted) == ["tokens[0]", "tokens[1]"], "\(unlisted.json as Any)")
        // Only an admin lists a device.
        #expect(try await herald.request("PUT", "/api/v1/test-devices/\(phone)", json: ["label": "Ana's Pixel"], headers: editor).status == 403)
        let listed = try await herald.request("PUT", "/api/v1/test-devices/\(phone)", json: ["label": "Ana's Pixel"])
        #expect(listed.status == 200 && listed.json?["label"] == "Ana's Pixel")
        #expect(try await herald.request("GET", "/api/v1/test-devices", headers: editor).json?["items"]?.arrayValue?.map { $0["token"] } == [.string(phone)])

        let mixed = try await herald.request("POST", test, json: ["tokens": .array([.string(phone), .string(stranger)])], headers: editor)
        #expect(mixed.status == 422 && paths(mixed) == ["tokens[1]"])
        #expect(sink.emulator.sendAttempts().isEmpty)
        let sent = try await herald.request("POST", test, json: ["tokens": .array([.string(phone)])], headers: editor)
        #expect(sent.status == 200, "\(sent.json as Any)")
        #expect(sink.emulator.messages().map { $0.message["token"]?.stringValue } == [phone])

        // Taken off the list, it is refused again; both changes are in the audit log.
        #expect(try await herald.request("DELETE", "/api/v1/test-devices/\(phone)").status == 204)
        #expect(try await herald.request("DELETE", "/api/v1/test-devices/\(phone)").status == 404)
        #expect(paths(try await herald.request("POST", test, json: ["tokens": .array([.string(phone)])], headers: editor)) == ["tokens[0]"])
        #expect(sink.emulator.sendAttempts().count == 1)
        let audit = try await herald.request("GET", "/api/v1/audit?limit=50").json?["items"]?.arrayValue ?? []
        let changes = audit.filter { $0["object_id"]?.stringValue == phone }.compactMap { $0["action"]?.stringValue }
        #expect(Set(changes) == ["test_device.added", "test_device.removed"], "\(changes)")
    }
}

import FCMEmulator
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldSync
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// Forgetting a device reaches everything: after `DELETE /api/v1/devices/{token}` the token (and
/// the device's personal values) is in no column of any table, whatever the schema grows, and in
/// no log line Herald wrote. The tables are not listed here: every column of the public schema
/// that can hold text (text, varchar, json, jsonb, arrays of them, ranges of text) is read from
/// `information_schema`, so a table added later is held to erasure without a change here.
@Suite(.serialized) struct ErasureTests {
    /// Every column of a base table in `public` that can hold a token as text.
    static func textColumns(on connection: PostgresConnection) throws -> [(table: String, column: String)] {
        try connection.query("""
            SELECT c.table_name::text, c.column_name::text FROM information_schema.columns c
            JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
            WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
              AND (c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'USER-DEFINED')
                   OR (c.data_type = 'ARRAY' AND c.udt_name IN ('_text', '_varchar', '_bpchar', '_json', '_jsonb')))
            ORDER BY 1, 2
            """).map { try $0.decode((String, String).self, columns: "table_name", "column_name") }
    }

    /// The columns among `columns` that hold `text` anywhere in a row.
    static func holding(_ text: String, _ columns: [(table: String, column: String)], on connection: PostgresConnection) throws -> [String] {
        try columns.filter { table, column in
            let quotedTable = "\"" + table + "\"", quotedColumn = "\"" + column + "\""
            return try connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(quotedTable) WHERE strpos(\(quotedColumn)::text, $1) > 0",
                                                      binds: [text.postgresValue])).first?.decode(Int.self, at: 0) ?? 0 > 0
        }.map { "\($0.table).\($0.column)" }
    }

    @Test(.timeLimit(.minutes(4)))
    func aForgottenDeviceIsInNoColumnOfAnyTableAndInNoLogLine() async throws {
        let suffix = UUID().uuidString.prefix(8).lowercased()
        // Sorted last, so that they bound the batches and ranges a run keeps; one FCM calls dead.
        let erased = "zz-erase-me-\(suffix)", dead = "zz-dead-\(suffix)", kept = "aa-keep-\(suffix)"
        let personal = "Zelda\(suffix)"
        let sink = try EmulatorSink(unregistered: [dead])
        let receiver = try WebhookReceiver()
        let lines = Locked<[String]>([])
        let log = Log(minimum: .info) { bytes in lines.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) } }
        let herald = try TestHerald(environment: sink.environment.merging(WebhooksTests.environment) { $1 }, log: log)
        _ = try await WebhooksTests.register(herald, receiver, events: WebhookEventType.allCases)

        for token in [erased, dead, kept] {
            let put = try await herald.request("PUT", "/api/v1/devices/\(token)", json: [
                "platform": "android", "country": "IR", "properties": ["first_name": .string(token == kept ? "Kim" : personal)]])
            #expect(put.status == 201, "\(put.json as Any)")
        }
        #expect(try await herald.request("PUT", "/api/v1/frequency-caps", json: ["marketing": ["day": 5]]).status == 200)
        #expect(try await herald.request("PUT", "/api/v1/test-devices/\(erased)", json: ["label": "Zelda's phone"]).status == 200)
        // A campaign to a list of tokens, sent; another still a draft; one to a segment, sent.
        let listed = try #require(try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Listed", "notification": ["title": "Hi {{first_name | default: \"you\"}}"], "tokens": [.string(kept), .string(erased), .string(dead)]]).json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(listed)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/campaigns/\(listed)").json?["status"]?.stringValue == "partially_failed"
        })
        let draft = try #require(try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Draft", "notification": ["title": "Hi"], "tokens": [.string(erased), .string(kept)]]).json?["id"]?.stringValue)
        let segment = try await ContactPolicyTests.segment(herald, countries: ["IR"])
        try await ContactPolicyTests.send(herald, ["name": "Segment", "notification": ["title": "Hello {{first_name | default: \"you\"}}"], "segment": .string(segment)])
        // A one-call send, its answer kept for its Idempotency-Key.
        let send = try await herald.request("POST", "/api/v1/sends", json: [
            "message": ["notification": ["title": "Order for {{first_name | default: \"you\"}}"]], "to": [["token": .string(erased), "variables": ["first_name": .string(personal)]]]],
            headers: ["Idempotency-Key": "erasure-1"])
        #expect(send.status == 202, "\(send.json as Any)")
        let sendID = try #require(send.json?["id"]?.stringValue)
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/sends/\(sendID)").json?["status"]?.stringValue == "sent"
        })
        // The app's own events and a campaign's, by the device.
        #expect(try await herald.request("POST", "/api/v1/events", json: ["events": [
            ["id": .string("open-\(suffix)"), "campaign_id": .string(listed), "variant": "A", "type": "open", "device_token": .string(erased)],
            ["id": .string("app-\(suffix)"), "type": "conversion", "device_token": .string(erased)]]]).status == 200)
        #expect(try await eventually(timeout: waitingLimit) { receiver.received.contains { $0.event == "device.invalidated" } })
        // An app event that puts it in a live journey, with a personal value of its own.
        let journey = try #require(try await herald.request("POST", "/api/v1/journeys", json: JourneysAPITests.journey).json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/journeys/\(journey)/publish").json?["status"] == "live")
        let reported = try await herald.request("POST", "/api/v1/events", json: ["events": [
            ["id": .string("cart-\(suffix)"), "event": "cart_abandoned", "device": .string(erased), "properties": ["item": .string(personal)]]]])
        #expect(reported.json?["recorded"] == 1, "\(reported.json as Any)")
        // A journey entered as a date its property holds comes due: the device's moment is written.
        let dated = try #require(try await herald.request("POST", "/api/v1/journeys", json: [
            "name": "Renewal", "entry": ["date": ["property": "renews_on", "offset_days": -1, "at": "10:00"]],
            "steps": [["name": "remind", "type": "send", "message": ["notification": ["title": "Renews tomorrow"]]]]]).json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/journeys/\(dated)/publish").json?["status"] == "live")
        #expect(try await herald.request("PUT", "/api/v1/devices/\(erased)", json: [
            "platform": "android", "country": "IR", "properties": ["first_name": .string(personal), "renews_on": "2099-01-01"]]).status == 200)

        let pool = herald.server.application.database.pool
        let columns = try pool.withConnection { try Self.textColumns(on: $0) }
        let before = try pool.withConnection { try Self.holding(erased, columns, on: $0) }
        #expect(before.contains("journey_dates.device_token"), "\(before)")
        print("erasure: \(columns.count) text columns in \(Set(columns.map(\.table)).count) tables; the token was in \(before.joined(separator: ", "))")

        for token in [erased, dead] {
            #expect(try await herald.request("DELETE", "/api/v1/devices/\(token)").status == 204)
        }
        for text in [erased, dead] {
            let left = try pool.withConnection { try Self.holding(text, columns, on: $0) }
            #expect(left.isEmpty, "\(text) is still in \(left.joined(separator: ", "))")
        }
        // Its personal values leave the segment counts when the census folds: at once, unless a
        // fold was under way (then at the next).
        let personalGone = try await eventually(timeout: waitingLimit) { try pool.withConnection { try Self.holding(personal, columns, on: $0) }.isEmpty }
        #expect(personalGone, "\(personal) is still in \((try? pool.withConnection { try Self.holding(personal, columns, on: $0) }) ?? [])")
        // What the API reads from those tables says it no more: the campaigns, the replayed send,
        // the webhook log.
        for campaign in [listed, draft] {
            let read = try await herald.request("GET", "/api/v1/campaigns/\(campaign)")
            #expect(read.status == 200 && !String(decoding: read.data, as: UTF8.self).contains(erased))
            #expect(read.json?["tokens"]?.arrayValue?.contains(.string(kept)) == true, "the rest of the list stays: \(read.json as Any)")
        }
        let replay = try await herald.request("POST", "/api/v1/sends", json: [
            "message": ["notification": ["title": "Order for {{first_name | default: \"you\"}}"]], "to": [["token": .string(erased), "variables": ["first_name": .string(personal)]]]],
            headers: ["Idempotency-Key": "erasure-1"])
        #expect(replay.status == 202 && replay.json?["id"]?.stringValue == sendID && !String(decoding: replay.data, as: UTF8.self).contains(erased))
        let webhooks = try await herald.request("GET", "/api/v1/webhooks").json?["items"]?.arrayValue ?? []
        for webhook in webhooks.compactMap({ $0["id"]?.stringValue }) {
            let deliveries = try await herald.request("GET", "/api/v1/webhooks/\(webhook)/deliveries")
            #expect(!String(decoding: deliveries.data, as: UTF8.self).contains(dead))
        }
        // The kept device is untouched, and no log line ever named the erased ones.
        #expect(try pool.withConnection { try Self.holding(kept, columns, on: $0) }.contains("devices.token"))
        let logged = lines.withLock { $0 }.filter { $0.contains(erased) || $0.contains(dead) || $0.contains(personal) }
        #expect(logged.isEmpty, "\(logged.prefix(3))")
    }

    /// A device moved to its FID is forgotten by its FID and by the token it moved from (which a
    /// campaign's list still names); a device waiting in a batch to be tried again (FCM answered
    /// 429 for it) leaves the batch, which then sends nobody and lets the run end.
    @Test(.timeLimit(.minutes(4)))
    func aMovedDeviceAndOneWaitingToBeTriedAgainAreForgottenToo() async throws {
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let moved = "zz-moved-\(suffix)", retried = "zz-retry-\(suffix)", kept = "aa-keep-\(suffix)"
        let fid = "c" + String(format: "%021d", Int.random(in: 0..<1_000_000_000))
        let sink = try EmulatorSink(faults: FaultInjection(retryAfterSeconds: 5), throttled: [retried])
        let herald = try TestHerald(environment: sink.environment)
        for token in [moved, retried, kept] {
            #expect(try await herald.request("PUT", "/api/v1/devices/\(token)", json: ["platform": "android", "country": "NL"]).status == 201)
        }
        let listed = try #require(try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Listed", "notification": ["title": "Hi"], "tokens": [.string(moved), .string(kept)]]).json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/devices/\(moved)/move-to-fid", json: ["fid": .string(fid)]).status == 200)
        let segment = try await ContactPolicyTests.segment(herald, countries: ["NL"])
        let campaign = try #require(try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Segment", "notification": ["title": "Hello"], "segment": .string(segment)]).json?["id"]?.stringValue)
        #expect(try await herald.request("POST", "/api/v1/campaigns/\(campaign)/schedule", headers: ["If-Match": "\"1\""]).status == 200)
        let pool = herald.server.application.database.pool
        #expect(try await eventually(timeout: waitingLimit) {
            try pool.withConnection { try $0.query("SELECT count(*) FROM device_batches WHERE tokens @> ARRAY[\(retried)::text]").first?.decode(Int.self, at: 0) } == 1
        })

        #expect(try await herald.request("DELETE", "/api/v1/devices/\(retried)").status == 204)
        #expect(try await herald.request("DELETE", "/api/v1/devices/\(fid)").status == 204)
        let columns = try pool.withConnection { try Self.textColumns(on: $0) }
        for text in [retried, fid, moved] {
            let left = try pool.withConnection { try Self.holding(text, columns, on: $0) }
            #expect(left.isEmpty, "\(text) is still in \(left.joined(separator: ", "))")
        }
        #expect(try await herald.request("GET", "/api/v1/campaigns/\(listed)").json?["tokens"] == [.string(kept)])
        // The batch is tried again with nobody in it, and the run ends having sent the others.
        #expect(try await eventually(timeout: waitingLimit) {
            try await herald.request("GET", "/api/v1/campaigns/\(campaign)").json?["status"]?.stringValue != "sending"
        })
        let sent = Set(sink.emulator.messages().compactMap { $0.message["token"]?.stringValue ?? $0.message["fid"]?.stringValue })
        #expect(sent == [kept, fid] || sent == [kept], "\(sent)")
    }
}

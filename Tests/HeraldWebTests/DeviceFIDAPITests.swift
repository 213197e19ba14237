import FCMEmulator
import Foundation
import HeraldJSON
import HeraldTestSupport
import Testing

/// Devices by Firebase installation ID over the API, against the real PostgreSQL and the emulator:
/// registering by FID, moving a device from its token to its FID, test sends to FIDs, the kind
/// through an export and an import, topic subscriptions, and a clear 4xx naming the field for
/// each bad input.
@Suite(.serialized) final class DeviceFIDAPITests {
    let emulator: EmulatorSink
    let herald: TestHerald

    static let token = "fcm-token:APA91b-" + String(repeating: "t", count: 120)
    static func fid(_ index: Int) -> String { "c" + String(format: "%021d", index) }

    init() throws {
        emulator = try EmulatorSink(unregistered: [Self.fid(99)])
        herald = try TestHerald(environment: emulator.environment.merging(["HERALD_SCHEDULER": "false"]) { _, new in new })
    }

    @Test func aDeviceRegistersByFIDAndATokenMovesToItsFID() async throws {
        let byFID = try await herald.request("PUT", "/api/v1/devices/\(Self.fid(1))", json: ["platform": "android", "kind": "fid"])
        #expect(byFID.status == 201)
        #expect(byFID.json?["kind"] == "fid")

        #expect(try await herald.request("PUT", "/api/v1/devices/\(Self.token)",
                                         json: ["platform": "ios", "language": "fa", "properties": ["first_name": "Sara"]]).status == 201)
        #expect(try await herald.request("GET", "/api/v1/devices/\(Self.token)").json?["kind"] == "token")
        let moved = try await herald.request("POST", "/api/v1/devices/\(Self.token)/move-to-fid", json: ["fid": .string(Self.fid(2))])
        #expect(moved.status == 200)
        #expect(moved.header("Location") == "/api/v1/devices/\(Self.fid(2))")
        #expect(moved.json?["token"] == .string(Self.fid(2)))
        #expect(moved.json?["kind"] == "fid")
        #expect(moved.json?["language"] == "fa")
        #expect(moved.json?["properties"] == ["first_name": "Sara"])
        #expect(try await herald.request("GET", "/api/v1/devices/\(Self.token)").status == 404)
        // Repeated (its answer lost): the same device, unchanged.
        let again = try await herald.request("POST", "/api/v1/devices/\(Self.token)/move-to-fid", json: ["fid": .string(Self.fid(2))])
        #expect(again.status == 200 && again.json?["token"] == .string(Self.fid(2)))

        // A device already by FID does not move; an FID another device has is a conflict.
        let already = try await herald.request("POST", "/api/v1/devices/\(Self.fid(2))/move-to-fid", json: ["fid": .string(Self.fid(3))])
        #expect(already.status == 409 && already.json?["code"] == "already_fid")
        let other = "fcm-token:other-" + String(repeating: "o", count: 60)
        #expect(try await herald.request("PUT", "/api/v1/devices/\(other)", json: ["platform": "android"]).status == 201)
        let taken = try await herald.request("POST", "/api/v1/devices/\(other)/move-to-fid", json: ["fid": .string(Self.fid(1))])
        #expect(taken.status == 409 && taken.json?["code"] == "fid_registered")
        #expect(try await herald.request("GET", "/api/v1/devices/\(other)").json?["kind"] == "token")
    }

    @Test func badInputGetsAClear4xxNamingTheField() async throws {
        let unknown = try await herald.request("POST", "/api/v1/devices/never-registered-token/move-to-fid", json: ["fid": .string(Self.fid(4))])
        #expect(unknown.status == 404)

        #expect(try await herald.request("PUT", "/api/v1/devices/\(Self.token)", json: ["platform": "android"]).status == 201)
        let badFID = try await herald.request("POST", "/api/v1/devices/\(Self.token)/move-to-fid", json: ["fid": "cAbC123"])
        #expect(badFID.status == 422)
        #expect(badFID.json?["errors"]?.arrayValue?.first?["path"] == "fid")
        #expect(badFID.json?["errors"]?.arrayValue?.first?["code"] == "invalid_fid")
        #expect(badFID.json?["errors"]?.arrayValue?.first?["message"]?.stringValue?.contains("has 7 characters, not 22") == true)
        let missing = try await herald.request("POST", "/api/v1/devices/\(Self.token)/move-to-fid", json: ["installation_id": "x"])
        #expect(missing.status == 422)
        #expect(Set(missing.json?["errors"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []) == ["fid", "installation_id"])
        #expect(try await herald.request("GET", "/api/v1/devices/\(Self.token)").json?["kind"] == "token")

        let badKind = try await herald.request("PUT", "/api/v1/devices/\(Self.fid(5))", json: ["platform": "android", "kind": "iid"])
        #expect(badKind.status == 422)
        #expect(badKind.json?["errors"]?.arrayValue?.first?["path"] == "kind")
        let tokenAsFID = try await herald.request("PUT", "/api/v1/devices/\(Self.token)", json: ["platform": "android", "kind": "fid"])
        #expect(tokenAsFID.status == 422)
        #expect(tokenAsFID.json?["errors"]?.arrayValue?.first?["path"] == "token")
        #expect(tokenAsFID.json?["errors"]?.arrayValue?.first?["code"] == "invalid_fid")
    }

    @Test func aTestSendTakesFIDsAndTheirUnregisteredMarksTheDevice() async throws {
        #expect(try await herald.request("PUT", "/api/v1/devices/\(Self.fid(99))", json: ["platform": "android", "kind": "fid"]).status == 201)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Try it", topics: ["news"]))
        let id = try #require(created.json?["id"]?.stringValue)
        let sent = try await herald.request("POST", "/api/v1/campaigns/\(id)/test",
                                            json: ["tokens": .array([.string(Self.token)]), "fids": .array([.string(Self.fid(6)), .string(Self.fid(99))])])
        #expect(sent.status == 200)
        let results = try #require(sent.json?["results"]?.arrayValue)
        #expect(results.map { $0["status"] } == ["sent", "sent", "failed"])
        #expect(results.map { $0["fid"] } == [nil, .string(Self.fid(6)), .string(Self.fid(99))])
        #expect(results[0]["token"] == .string(Self.token))
        let messages = emulator.emulator.messages()
        #expect(Set(messages.compactMap { $0.message["fid"]?.stringValue }) == [Self.fid(6)])
        #expect(messages.first { $0.message["fid"] != nil }?.message["token"] == nil)
        let gone = try await herald.request("GET", "/api/v1/devices/\(Self.fid(99))")
        #expect(gone.json?["status"] == "invalid")

        let onlyFIDs = try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["fids": .array([.string(Self.fid(7))])])
        #expect(onlyFIDs.status == 200)
        let badFID = try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["fids": ["not-an-fid"]])
        #expect(badFID.status == 422 && badFID.json?["errors"]?.arrayValue?.first?["path"] == "fids[0]")
        let neither = try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["fids": []])
        #expect(neither.status == 422 && neither.json?["errors"]?.arrayValue?.first?["path"] == "fids")
        let none = try await herald.request("POST", "/api/v1/campaigns/\(id)/test", json: ["variant": "A"])
        #expect(none.status == 422 && none.json?["errors"]?.arrayValue?.first?["path"] == "tokens")
    }

    @Test func theKindGoesOutInTheExportAndComesBackInAnImport() async throws {
        #expect(try await herald.request("PUT", "/api/v1/devices/\(Self.fid(8))", json: ["platform": "web", "kind": "fid", "properties": ["city": "Rome"]]).status == 201)
        #expect(try await herald.request("PUT", "/api/v1/devices/\(Self.token)", json: ["platform": "ios"]).status == 201)
        let export = try await herald.request("GET", "/api/v1/device-export")
        let lines = String(decoding: export.data, as: UTF8.self).split(separator: "\r\n").map(String.init)
        #expect(lines.first?.hasPrefix("token,kind,platform,") == true)
        #expect(lines.contains { $0.hasPrefix("\(Self.fid(8)),fid,web,") })
        #expect(lines.contains { $0.hasPrefix("\(Self.token),token,ios,") })

        for device in [Self.fid(8), Self.token] { #expect(try await herald.request("DELETE", "/api/v1/devices/\(device)").status == 204) }
        let imported = try await herald.request("POST", "/api/v1/device-imports", body: Array(lines.joined(separator: "\n").utf8),
                                                headers: ["Content-Type": "text/csv"])
        #expect(imported.json?["created"] == 2 && imported.json?["failed"] == 0)
        let back = try await herald.request("GET", "/api/v1/devices/\(Self.fid(8))")
        #expect(back.json?["kind"] == "fid" && back.json?["properties"] == ["city": "Rome"])

        // NDJSON carries it as a field; a row with a bad one is refused by its line.
        let ndjson = "{\"token\": \"\(Self.fid(9))\", \"kind\": \"fid\", \"platform\": \"android\"}\n{\"token\": \"\(Self.fid(10))\", \"kind\": \"apns\", \"platform\": \"ios\"}\n"
        let report = try await herald.request("POST", "/api/v1/device-imports", body: Array(ndjson.utf8), headers: ["Content-Type": "application/x-ndjson"])
        #expect(report.json?["created"] == 1)
        #expect(report.json?["errors"]?.arrayValue?.first?["line"] == 2 && report.json?["errors"]?.arrayValue?.first?["field"] == "kind")
    }

    /// FCM v1's topicSubscriptions takes an FID as the registration: a server-side subscription
    /// reaches FID devices too, and each device's topics are listed from FCM (viewer and above;
    /// 404 for a device Herald does not know).
    @Test func aTopicSubscriptionReachesFIDDevicesAndTheirTopicsAreListed() async throws {
        #expect(try await herald.request("PUT", "/api/v1/devices/\(Self.fid(11))", json: ["platform": "android", "kind": "fid"]).status == 201)
        #expect(try await herald.request("PUT", "/api/v1/devices/\(Self.token)", json: ["platform": "android"]).status == 201)
        let answer = try await herald.request("POST", "/api/v1/topic-subscriptions",
                                              json: ["topic": "news", "tokens": .array([.string(Self.token), .string(Self.fid(11))])])
        #expect(answer.status == 200)
        #expect(answer.json?["devices"] == 2 && answer.json?["changed"] == 2 && answer.json?["throttled"] == 0)
        #expect(answer.json?["skipped_fids"] == 0 && answer.json?["skipped_reason"] == .null)
        #expect(emulator.emulator.instanceIDCallCount == 0)

        #expect(try await herald.request("POST", "/api/v1/topic-subscriptions", json: ["topic": "sport", "tokens": [.string(Self.fid(11))]]).status == 200)
        let listed = try await herald.request("GET", "/api/v1/devices/\(Self.fid(11))/topics")
        #expect(listed.status == 200)
        #expect(listed.json?["token"] == .string(Self.fid(11)))
        #expect(listed.json?["topics"]?.arrayValue?.compactMap { $0["topic"]?.stringValue } == ["news", "sport"])
        #expect(listed.json?["topics"]?.arrayValue?.allSatisfy { $0["create_time"]?.stringValue?.hasSuffix("Z") == true } == true)
        #expect(try await herald.request("GET", "/api/v1/devices/\(Self.token)/topics").json?["topics"]?.arrayValue?.count == 1)
        let unknown = try await herald.request("GET", "/api/v1/devices/\(Self.fid(12))/topics")
        #expect(unknown.status == 404)
        #expect(try await herald.request("GET", "/api/v1/devices/\(Self.fid(11))/topics", authenticated: false).status == 401)
    }

    /// A segment's subscription is background work: 202 with the job's address at once, then its
    /// progress there until an instance's "topic-subscriptions" service has done every device.
    @Test(.timeLimit(.minutes(2)))
    func aSegmentsSubscriptionIsBackgroundWorkWithProgress() async throws {
        let running = try TestHerald(environment: emulator.environment)
        let devices = (0..<1500).map { "{\"token\": \"\(Self.fid($0))\", \"kind\": \"fid\", \"platform\": \"android\", \"country\": \"IR\"}" }
        let imported = try await running.request("POST", "/api/v1/device-imports", body: Array(devices.joined(separator: "\n").utf8),
                                                  headers: ["Content-Type": "application/x-ndjson"])
        #expect(imported.json?["created"] == 1500)
        let segment = try #require(try await running.request("POST", "/api/v1/segments", json: [
            "name": "Iran", "rule": ["all": [["field": "country", "equals": "IR"]]]]).json?["id"]?.stringValue)
        let queued = try await running.request("POST", "/api/v1/topic-subscriptions", json: ["topic": "news", "segment": .string(segment)])
        #expect(queued.status == 202)
        let location = try #require(queued.header("Location"))
        #expect(location.hasPrefix("/api/v1/topic-subscriptions/") && queued.json?["reach"] == 1500 && queued.json?["segment"] == .string(segment))
        var job: JSON?
        #expect(try await eventually(timeout: .seconds(60)) {
            job = try await running.request("GET", location).json
            return job?["status"] == "done"
        })
        // This suite's emulator does not know fid(99): reported, and marked invalid.
        #expect(job?["devices"] == 1500 && job?["changed"] == 1499 && job?["failed"] == 1 && job?["throttled"] == 0)
        #expect(job?["failures"] == [["token": .string(Self.fid(99)), "reason": "UNREGISTERED"]])
        #expect(job?["started_at"]?.stringValue != nil && job?["finished_at"]?.stringValue != nil)
        #expect(emulator.emulator.subscribers(of: "news").count == 1499)
        #expect(try await running.request("GET", "/api/v1/devices/\(Self.fid(99))").json?["status"] == "invalid")
        #expect(try await running.request("GET", "/api/v1/topic-subscriptions/5b4d2ad0-0000-4000-8000-000000000000").status == 404)
        #expect(try await running.request("GET", "/api/v1/topic-subscriptions/not-a-job").status == 404)
    }

    /// Assigning time-zone topics is background work too: 202 with the job at once (the one under
    /// way, if one is), then its progress until an instance has moved every device whose zone changed.
    @Test(.timeLimit(.minutes(2)))
    func timeZoneTopicsAreBackgroundWorkWithProgress() async throws {
        let idle = try TestHerald(environment: emulator.environment.merging(["HERALD_SCHEDULER": "false"]) { _, new in new })
        let zones = ["Asia/Tehran", "Europe/Berlin", "America/New_York"]
        let devices = (0..<1500).map { "{\"token\": \"\(Self.fid($0))\", \"kind\": \"fid\", \"platform\": \"android\", \"time_zone\": \"\(zones[$0 % 3])\"}" }
        #expect(try await idle.request("POST", "/api/v1/device-imports", body: Array(devices.joined(separator: "\n").utf8),
                                        headers: ["Content-Type": "application/x-ndjson"]).json?["created"] == 1500)
        let queued = try await idle.request("POST", "/api/v1/time-zone-topics")
        #expect(queued.status == 202)
        let location = try #require(queued.header("Location"))
        #expect(location == "/api/v1/topic-subscriptions/\(queued.json?["id"]?.stringValue ?? "")")
        #expect(queued.json?["kind"] == "time_zones" && queued.json?["topic"] == .null && queued.json?["segment"] == .null)
        #expect(queued.json?["status"] == "queued" && queued.json?["reach"] == 1500)
        // Asked again while it waits: the same job, not a second one.
        let again = try await idle.request("POST", "/api/v1/time-zone-topics")
        #expect(again.status == 202 && again.header("Location") == location)

        // An instance that works through jobs takes it.
        let running = try TestHerald(databaseURL: idle.databaseURL, environment: emulator.environment)
        var job: JSON?
        #expect(try await eventually(timeout: waitingLimit) {
            job = try await running.request("GET", location).json
            return job?["status"] == "done"
        })
        // This suite's emulator does not know fid(99) (a Tehran device): reported, and marked invalid.
        #expect(job?["devices"] == 1500 && job?["changed"] == 1499 && job?["unsubscribed"] == 0 && job?["failed"] == 1)
        #expect(job?["zones"] == .array(zones.sorted().map(JSON.string)))
        #expect(job?["failures"] == [["token": .string(Self.fid(99)), "reason": "UNREGISTERED"]])
        #expect(emulator.emulator.subscribers(of: "tz.Asia.Tehran").count == 499 && emulator.emulator.subscribers(of: "tz.Europe.Berlin").count == 500)
        // Every active device is in its zone's topic: the next job has nothing to do.
        let next = try await running.request("POST", "/api/v1/time-zone-topics")
        #expect(next.status == 202 && next.header("Location") != location && next.json?["reach"] == 0)
    }

    /// The Instance ID fallback, chosen for an old project: documented for registration tokens
    /// only, so FID devices are left out and the answer says how many and why.
    @Test func theInstanceIDFallbackLeavesFIDDevicesOutAndSaysSo() async throws {
        let fallback = try TestHerald(environment: emulator.environment.merging(["HERALD_SCHEDULER": "false", "HERALD_FCM_TOPIC_API": "instance-id"]) { _, new in new })
        #expect(try await fallback.request("PUT", "/api/v1/devices/\(Self.fid(11))", json: ["platform": "android", "kind": "fid"]).status == 201)
        #expect(try await fallback.request("PUT", "/api/v1/devices/\(Self.token)", json: ["platform": "android"]).status == 201)
        let answer = try await fallback.request("POST", "/api/v1/topic-subscriptions",
                                                json: ["topic": "news", "tokens": .array([.string(Self.token), .string(Self.fid(11))])])
        #expect(answer.status == 200)
        #expect(answer.json?["devices"] == 1 && answer.json?["changed"] == 1)
        #expect(answer.json?["skipped_fids"] == 1)
        #expect(answer.json?["skipped_reason"]?.stringValue?.contains("registration tokens only") == true)
        #expect(emulator.emulator.instanceIDCallCount == 1 && emulator.emulator.subscriptionRequests().isEmpty)
    }
}

@testable import HeraldApp
import HeraldTestSupport
import FCMEmulator
import Foundation
import HeraldJSON
import HeraldPostgres
import Testing

/// A campaign's lifecycle over the REST API, with the scheduler and workers sending to the
/// emulator: scheduled → sending → sent (or failed), cancelled before its time, frozen once sending.
@Suite(.serialized) final class SchedulingLifecycleTests {
    /// Sends a campaign's current ETag in If-Match.
    func post(_ herald: TestHerald, _ path: String, version: Int) async throws -> TestHerald.Response {
        try await herald.request("POST", path, headers: ["If-Match": "\"\(version)\""])
    }

    func status(_ herald: TestHerald, _ id: String) async throws -> String? {
        try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"]?.stringValue
    }

    /// A row that today's rules refuse (here edited by hand) lists and reads as stored; when its
    /// run is due it fails alone, with a failed run that says why, and nothing is sent.
    @Test(.timeLimit(.minutes(5)))
    func aStoredCampaignThatNoLongerValidatesListsFineAndIsReportedUnplannableWhenDue() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Broken later", topics: ["news"]))
        let id = try #require(created.json?["id"]?.stringValue)
        let long = String(repeating: "x", count: 2000)
        try herald.server.application.database.pool.withConnection { connection in
            _ = try connection.execute("""
                UPDATE campaigns SET content = jsonb_set(content, '{notification,title}', to_jsonb(\(long)::text)) WHERE id = \(id)::uuid
                """)
        }
        let list = try await herald.request("GET", "/api/v1/campaigns")
        #expect(list.status == 200)
        #expect(list.json?["items"]?.arrayValue?.contains { $0["id"]?.stringValue == id } == true)
        #expect(try await herald.request("GET", "/api/v1/campaigns/\(id)").status == 200)
        let preview = try await herald.request("GET", "/api/v1/campaigns/\(id)/preview")
        #expect(preview.status == 409)
        #expect(preview.json?["code"] == "stored_content_invalid")

        try herald.server.application.database.pool.withConnection { connection in
            _ = try connection.execute("UPDATE campaigns SET status = 'scheduled', next_run_at = now() WHERE id = \(id)::uuid")
            _ = try connection.query("SELECT pg_notify('herald_schedule', '')")
        }
        #expect(try await eventually(timeout: waitingLimit) { try await status(herald, id) == "failed" })
        let runs = try #require(try await herald.request("GET", "/api/v1/campaigns/\(id)/runs").json?["items"]?.arrayValue)
        #expect(runs.count == 1)
        #expect(runs.first?["status"] == "failed")
        #expect(runs.first?["warnings"]?.arrayValue?.first?.stringValue?.contains("cannot be planned") == true)
        #expect(sink.emulator.messages().isEmpty)
        #expect(try await herald.request("GET", "/api/v1/campaigns").status == 200)
    }

    @Test(.timeLimit(.minutes(5)))
    func scheduledNowEachPlannedRequestIsSentOnceAndTheCampaignEndsSent() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment)
        // Seven topics: two OR conditions (FCM allows five topics in one).
        let topics = (1...7).map { "news-\($0)" }
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Launch", topics: topics))
        let id = try #require(created.json?["id"]?.stringValue)

        let scheduled = try await post(herald, "/api/v1/campaigns/\(id)/schedule", version: 1)
        #expect(scheduled.status == 200)
        #expect(scheduled.header("ETag") == "\"1\"")  // scheduling is no content write
        #expect(try await eventually(timeout: waitingLimit) { try await status(herald, id) == "sent" })

        let runs = try #require(try await herald.request("GET", "/api/v1/campaigns/\(id)/runs").json?["items"]?.arrayValue)
        #expect(runs.count == 1)
        #expect(runs.first?["status"] == "sent")
        #expect(runs.first?["planned"] == 2)
        #expect(runs.first?["variants"]?["A"]?["sent"] == 2)
        #expect(runs.first?["finished_at"]?.stringValue != nil)

        let deliveries = try #require(try await herald.request("GET", "/api/v1/campaigns/\(id)/deliveries").json?["items"]?.arrayValue)
        #expect(deliveries.count == 2)
        #expect(deliveries.allSatisfy { $0["status"] == "sent" && $0["attempts"] == 1 })
        let names = Set(deliveries.compactMap { $0["message_name"]?.stringValue })
        let received = sink.emulator.messages()
        #expect(received.count == 2)
        #expect(Set(received.map(\.name)) == names)
        let conditions = received.compactMap { $0.message["condition"]?.stringValue }
        #expect(conditions.count == 2)
        for topic in topics { #expect(conditions.filter { $0.contains("'\(topic)'") }.count == 1) }

        // Sent: no more edits, no second schedule, nothing to cancel.
        let version = try #require(try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["version"]?.intValue)
        let edit = try await herald.request("PATCH", "/api/v1/campaigns/\(id)", json: ["name": "Renamed"],
                                            headers: ["If-Match": "\"\(version)\"", "Content-Type": "application/merge-patch+json"])
        #expect(edit.status == 409)
        #expect(try await post(herald, "/api/v1/campaigns/\(id)/schedule", version: version).status == 409)
        #expect(try await post(herald, "/api/v1/campaigns/\(id)/cancel", version: version).status == 409)
        #expect(sink.emulator.messages().count == 2)
    }

    @Test(.timeLimit(.minutes(5)))
    func cancellingBeforeTheDueTimeSendsNothing() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment)
        // A day ahead: the due time comes when the test moves it, after the cancel, never before.
        let due = Date().addingTimeInterval(86_400).rounded()
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(
            name: "Changed our minds", topics: ["news"], schedule: ["kind": "once", "at": .string(utcLocal(due)), "time_zone": "UTC"]))
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(try await post(herald, "/api/v1/campaigns/\(id)/schedule", version: 1).status == 200)
        #expect(try await status(herald, id) == "scheduled")
        let cancelled = try await post(herald, "/api/v1/campaigns/\(id)/cancel", version: 1)
        #expect(cancelled.status == 200)
        #expect(cancelled.json?["status"] == "cancelled")
        #expect(cancelled.json?["next_run_at"] == .null)

        // The due time comes now, even as a leftover of the cancelled schedule: still nothing is sent.
        try herald.server.application.database.pool.withConnection { connection in
            _ = try connection.execute("UPDATE campaigns SET next_run_at = now() WHERE id = \(id)::uuid")
        }
        #expect(try await herald.engineLooksAgain())
        #expect(sink.emulator.sendAttempts().isEmpty)
        #expect(try await status(herald, id) == "cancelled")
        #expect(try await herald.request("GET", "/api/v1/campaigns/\(id)/runs").json?["items"]?.arrayValue?.isEmpty == true)
    }

    @Test(.timeLimit(.minutes(5)))
    func cancellingWhileSendingStopsTheRestAndStillRecordsWhatWasInFlight() async throws {
        // Each answer takes 2 s and a run sends one fan-out at a time: the campaign is still sending
        // 18 s after its first message, room enough for a busy machine to read and cancel it.
        let sink = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .seconds(2)))
        let herald = try TestHerald(environment: sink.environment.merging(["HERALD_DELIVERY_BATCH_SIZE": "2"]) { _, new in new })
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(
            name: "Stop the presses", topics: (1...50).map { "topic-\($0)" }))  // ten requests
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(try await post(herald, "/api/v1/campaigns/\(id)/schedule", version: 1).status == 200)
        #expect(try await eventually(timeout: waitingLimit) {
            !sink.emulator.messages().isEmpty
        })
        let current = try #require(try await herald.request("GET", "/api/v1/campaigns/\(id)").json)
        #expect(current["status"] == "sending")
        let version = try #require(current["version"]?.intValue)
        let cancelled = try await post(herald, "/api/v1/campaigns/\(id)/cancel", version: version)
        #expect(cancelled.status == 200)
        #expect(try await herald.engineLooksAgain())  // rounds in flight have finished and are recorded

        let deliveries = try #require(try await herald.request("GET", "/api/v1/campaigns/\(id)/deliveries").json?["items"]?.arrayValue)
        let sent = deliveries.filter { $0["status"] == "sent" }.count
        let stopped = deliveries.filter { $0["status"] == "cancelled" }.count
        #expect(sent + stopped == 10)
        #expect(stopped > 0)
        #expect(sent == sink.emulator.messages().count)  // what reached FCM shows as sent, not cancelled
        #expect(try await status(herald, id) == "cancelled")
        #expect(try await herald.request("GET", "/api/v1/campaigns/\(id)/runs").json?["items"]?.arrayValue?.first?["status"] == "cancelled")
    }

    /// A key FCM refuses concerns every request of the project (`fcm.md`): the campaign pauses at
    /// the first answer, with FCM's error on the request and the reason on the run, and nothing
    /// more is sent until it is resumed (the request waits, it is not failed: `FCMErrorScopeTests`
    /// resumes such runs with the key fixed).
    @Test(.timeLimit(.minutes(5)))
    func aRefusedKeyPausesTheCampaignWithFCMsErrorAndSendsNothingMore() async throws {
        // The key names a project the emulator does not serve: FCM answers 403 PERMISSION_DENIED.
        let sink = try EmulatorSink(keyProject: "someone-elses-project")
        let herald = try TestHerald(environment: sink.environment)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Wrong project", topics: ["news"]))
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(try await post(herald, "/api/v1/campaigns/\(id)/schedule", version: 1).status == 200)
        #expect(try await eventually(timeout: waitingLimit) { try await status(herald, id) == "paused" })

        let deliveries = try #require(try await herald.request("GET", "/api/v1/campaigns/\(id)/deliveries?status=retrying").json?["items"]?.arrayValue)
        #expect(deliveries.count == 1)
        #expect(deliveries.first?["error"]?["code"] == "PERMISSION_DENIED")
        #expect(deliveries.first?["error"]?["message"]?.stringValue?.contains("someone-elses-project") == true)
        #expect(deliveries.first?["attempts"] == 1)
        #expect(try await herald.engineLooksAgain())
        #expect(sink.emulator.sendAttempts().count == 1)
        let run = try #require(try await herald.request("GET", "/api/v1/campaigns/\(id)/runs").json?["items"]?.arrayValue?.first)
        #expect(run["status"] == "sending")
        #expect(run["warnings"]?.arrayValue?.first?.stringValue?.contains("PERMISSION_DENIED") == true)
    }

    @Test(.timeLimit(.minutes(5)))
    func unavailableIsRetriedAtTheStoredNextAttemptNotBefore() async throws {
        let sink = try EmulatorSink(faults: FaultInjection(unavailable: 1, unavailableRetryAfter: 30))
        let herald = try TestHerald(environment: sink.environment)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: campaignJSON(name: "Busy FCM", topics: ["news"]))
        let id = try #require(created.json?["id"]?.stringValue)
        #expect(try await post(herald, "/api/v1/campaigns/\(id)/schedule", version: 1).status == 200)

        var retrying: JSON?
        #expect(try await eventually(timeout: waitingLimit) {
            retrying = try await herald.request("GET", "/api/v1/campaigns/\(id)/deliveries?status=retrying").json?["items"]?.arrayValue?.first
            return retrying != nil
        })
        #expect(retrying?["attempts"] == 1)
        #expect(retrying?["error"]?["code"] == "UNAVAILABLE")
        let next = try #require(retrying?["next_attempt_at"]?.stringValue)
        let nextDate = try #require(ISO8601DateFormatter.withFractions.date(from: next))
        #expect(nextDate.timeIntervalSinceNow > 25)  // Retry-After: 30 honoured and stored
        #expect(try await herald.engineLooksAgain())
        #expect(sink.emulator.sendAttempts().count == 1)
        #expect(try await status(herald, id) == "sending")
        let runs = try await herald.request("GET", "/api/v1/campaigns/\(id)/runs").json
        #expect(runs?["items"]?.arrayValue?.first?["variants"]?["A"]?["retrying"] == 1)
    }
}

extension ISO8601DateFormatter {
    /// Reads the API's timestamps ("2026-11-22T00:59:03.123456Z").
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}

extension Date {
    /// To the next whole second (one-off schedules are to the second).
    func rounded() -> Date { Date(timeIntervalSince1970: (timeIntervalSince1970).rounded(.up)) }
}

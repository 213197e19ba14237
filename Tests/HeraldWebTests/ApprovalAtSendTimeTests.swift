import HeraldTestSupport
import FCMEmulator
import Foundation
@testable import HeraldApp
import HeraldJSON
import HeraldPostgres
import Testing

/// Approvals hold at send time (`HERALD_APPROVALS=on`, the scheduler sending to the emulator): a
/// run starts only for the version a publisher approved, an edit after approval holds a scheduled
/// campaign's runs until the new version is approved, and a run in flight sends what it started with.
///
/// The test owns every due time: campaigns are scheduled well ahead and made due by moving
/// `next_run_at` in the database. That nothing was sent is proven against a control campaign made
/// due by the same statement: once the scheduler has started the control's run, it has looked at
/// the held campaign too (one pass locks every due campaign, the earliest first).
extension ApprovalAPITests {
    static let approvals = ["HERALD_APPROVALS": "on"]

    /// A publisher's approval and schedule of `version` (the editor submitted it).
    func approveAndSchedule(_ herald: TestHerald, _ id: String, version: Int, editor: [String: String], publisher: [String: String],
                            submit: Bool = true) async throws {
        let path = "/api/v1/campaigns/\(id)"
        if submit { #expect(try await post(herald, "\(path)/submit", version: version, as: editor).status == 200) }
        #expect(try await post(herald, "\(path)/approve", version: version, as: publisher).status == 200)
        let scheduled = try await post(herald, "\(path)/schedule", version: version, as: publisher)
        #expect(scheduled.status == 200, "\(scheduled.json as Any)")
    }

    /// A campaign `editor` creates, an hour ahead (or daily), to topic `news`.
    func create(_ herald: TestHerald, _ title: String, recurring: Bool = false, as editor: [String: String]) async throws -> (id: String, body: JSON) {
        let schedule: JSON = recurring ? ["kind": "daily", "time": "09:00", "time_zone": "UTC"]
            : ["kind": "once", "at": .string(utcLocal(Date().addingTimeInterval(3600))), "time_zone": "UTC"]
        let body = campaignJSON(name: title, topics: ["news"], schedule: schedule)
        let created = try await herald.request("POST", "/api/v1/campaigns", json: body, headers: editor)
        #expect(created.status == 201)
        return (try #require(created.json?["id"]?.stringValue), body)
    }

    /// `body` with a new notification title, as an editor's full replacement (PUT).
    func retitled(_ body: JSON, _ title: String) -> JSON {
        guard case .object(var object) = body, case .object(var notification) = object["notification"] ?? .null else { return body }
        notification["title"] = .string(title)
        object["notification"] = .object(notification)
        return .object(object)
    }

    func put(_ herald: TestHerald, _ id: String, _ body: JSON, version: Int, as auth: [String: String]) async throws -> TestHerald.Response {
        try await herald.request("PUT", "/api/v1/campaigns/\(id)", json: body, headers: auth.merging(["If-Match": "\"\(version)\""]) { _, new in new })
    }

    /// Makes `ids` due now in one statement and wakes the scheduler.
    func makeDue(_ herald: TestHerald, _ ids: [String]) throws {
        try herald.server.application.database.pool.withConnection { connection in
            _ = try connection.execute("UPDATE campaigns SET next_run_at = now() WHERE id = ANY(\(ids)::uuid[])")
            _ = try connection.query("SELECT pg_notify('herald_schedule', '')")
        }
    }

    func titles(_ sink: EmulatorSink) -> [String] {
        sink.emulator.messages().compactMap { $0.message["notification"]?["title"]?.stringValue }
    }

    func runs(_ herald: TestHerald, _ id: String) async throws -> [JSON] {
        try await herald.request("GET", "/api/v1/campaigns/\(id)/runs").json?["items"]?.arrayValue ?? []
    }

    /// A control campaign, approved and scheduled, to make due beside a held one.
    func control(_ herald: TestHerald, _ title: String, editor: [String: String], publisher: [String: String]) async throws -> String {
        let id = try await create(herald, title, as: editor).id
        try await approveAndSchedule(herald, id, version: 1, editor: editor, publisher: publisher)
        return id
    }

    /// The exact bypass found from outside: approved and scheduled, then edited by the editor. The
    /// new title is not sent when the campaign falls due; it goes out once a publisher approves it.
    @Test(.timeLimit(.minutes(5)))
    func anEditAfterApprovalIsHeldUntilTheNewVersionIsApproved() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment.merging(Self.approvals) { _, new in new })
        let editor = try key(herald, "editor", .editor), publisher = try key(herald, "publisher", .publisher)
        let (id, body) = try await create(herald, "APPROVED-1", as: editor)
        try await approveAndSchedule(herald, id, version: 1, editor: editor, publisher: publisher)

        let edited = try await put(herald, id, retitled(body, "UNAPPROVED-2"), version: 1, as: editor)
        #expect(edited.status == 200)
        #expect(edited.json?["status"] == "scheduled")
        #expect(edited.json?["approval"]?["state"] == "awaiting_approval")
        #expect(edited.json?["approval"]?["runs_held"] == true)

        let control = try await control(herald, "CONTROL", editor: editor, publisher: publisher)
        try makeDue(herald, [id, control])
        #expect(try await eventually(timeout: waitingLimit) { titles(sink).contains("CONTROL") })
        #expect(!titles(sink).contains("UNAPPROVED-2"))
        #expect(!titles(sink).contains("APPROVED-1"))
        #expect(try await runs(herald, id).isEmpty)
        #expect(try await herald.request("GET", "/api/v1/campaigns/\(id)").json?["status"] == "scheduled")

        // The audit log says why nothing went out.
        let audit = try await herald.request("GET", "/api/v1/audit?limit=100")
        let actions = (audit.json?["items"]?.arrayValue ?? []).filter { $0["object_id"]?.stringValue == id }.compactMap { $0["action"]?.stringValue }
        #expect(actions.contains("campaign.runs_held_for_approval"), "\(actions)")

        // Approved, the held run starts at once (its due time has passed) and sends version 2.
        let approved = try await post(herald, "/api/v1/campaigns/\(id)/approve", version: 2, as: publisher)
        #expect(approved.status == 200)
        #expect(approved.json?["approval"]?["runs_held"] == false)
        #expect(try await eventually(timeout: waitingLimit) { titles(sink).contains("UNAPPROVED-2") })
        #expect(!titles(sink).contains("APPROVED-1"))
        let sent = try await runs(herald, id)
        #expect(sent.count == 1)
        #expect(sent.first?["campaign_version"] == 2)
        let released = try await herald.request("GET", "/api/v1/audit?limit=100")
        #expect((released.json?["items"]?.arrayValue ?? []).contains {
            $0["object_id"]?.stringValue == id && $0["action"] == "campaign.approved" && $0["details"]?["runs_released"] == true
        })
    }

    /// Every run of a recurring campaign checks: the first sends the approved version, an edit
    /// holds the next, and the next sends the edit only once it is approved.
    @Test(.timeLimit(.minutes(5)))
    func eachRunOfARecurringCampaignSendsOnlyAnApprovedVersion() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment.merging(Self.approvals) { _, new in new })
        let editor = try key(herald, "editor", .editor), publisher = try key(herald, "publisher", .publisher)
        let (id, body) = try await create(herald, "DAILY-1", recurring: true, as: editor)
        try await approveAndSchedule(herald, id, version: 1, editor: editor, publisher: publisher)
        try makeDue(herald, [id])
        #expect(try await eventually(timeout: waitingLimit) { titles(sink).contains("DAILY-1") })

        #expect(try await put(herald, id, retitled(body, "DAILY-2"), version: 1, as: editor).json?["approval"]?["runs_held"] == true)
        let control = try await control(herald, "CONTROL", editor: editor, publisher: publisher)
        try makeDue(herald, [id, control])
        #expect(try await eventually(timeout: waitingLimit) { titles(sink).contains("CONTROL") })
        #expect(titles(sink).filter { $0.hasPrefix("DAILY") } == ["DAILY-1"])
        #expect(try await runs(herald, id).count == 1)

        #expect(try await post(herald, "/api/v1/campaigns/\(id)/approve", version: 2, as: publisher).status == 200)
        #expect(try await eventually(timeout: waitingLimit) { titles(sink).contains("DAILY-2") })
        let all = try await runs(herald, id)
        #expect(all.compactMap { $0["campaign_version"]?.intValue }.sorted() == [1, 2])
        #expect(titles(sink).filter { $0.hasPrefix("DAILY") } == ["DAILY-1", "DAILY-2"])
    }

    /// Version 3 awaits approval, and the editor saves version 4 before the publisher decides: the
    /// publisher's approval of 3 is refused as stale, and neither goes out.
    @Test(.timeLimit(.minutes(5)))
    func approvingVersion3WhileVersion4IsSavedApprovesNothing() async throws {
        let sink = try EmulatorSink()
        let herald = try TestHerald(environment: sink.environment.merging(Self.approvals) { _, new in new })
        let editor = try key(herald, "editor", .editor), publisher = try key(herald, "publisher", .publisher)
        let (id, body) = try await create(herald, "V1", as: editor)
        try await approveAndSchedule(herald, id, version: 1, editor: editor, publisher: publisher)
        #expect(try await put(herald, id, retitled(body, "V2"), version: 1, as: editor).status == 200)
        #expect(try await put(herald, id, retitled(body, "V3"), version: 2, as: editor).status == 200)
        // Still awaiting since version 2: a submission is not needed again, and 4 replaces 3.
        #expect(try await put(herald, id, retitled(body, "V4"), version: 3, as: editor).status == 200)

        let stale = try await post(herald, "/api/v1/campaigns/\(id)/approve", version: 3, as: publisher)
        #expect(stale.status == 412)
        let current = try await herald.request("GET", "/api/v1/campaigns/\(id)")
        #expect(current.json?["version"] == 4)
        #expect(current.json?["approval"]?["state"] == "awaiting_approval")
        #expect(current.json?["approval"]?["approved_version"] == 1)
        #expect(current.json?["approval"]?["runs_held"] == true)

        let control = try await control(herald, "CONTROL", editor: editor, publisher: publisher)
        try makeDue(herald, [id, control])
        #expect(try await eventually(timeout: waitingLimit) { titles(sink).contains("CONTROL") })
        #expect(titles(sink) == ["CONTROL"])
        #expect(try await runs(herald, id).isEmpty)
    }

    /// A run that started with the approved version sends it to the end, even when an edit
    /// arrives while its requests are going out; the edit holds only the runs after it.
    @Test(.timeLimit(.minutes(5)))
    func aRunInFlightWhenAnEditArrivesSendsTheApprovedVersion() async throws {
        // Each request takes 400 ms at FCM and a worker sends one device a round: the run is in
        // flight for a few seconds, and the edit is made once its first request has reached FCM.
        let sink = try EmulatorSink(faults: FaultInjection(slow: 1, slowDelay: .milliseconds(400)))
        let herald = try TestHerald(environment: sink.environment.merging(Self.approvals.merging([
            "HERALD_DELIVERY_DEVICE_BATCH_SIZE": "1", "HERALD_DELIVERY_WORKERS": "1"]) { _, new in new }) { _, new in new })
        let editor = try key(herald, "editor", .editor), publisher = try key(herald, "publisher", .publisher)
        let tokens = (1...6).map { "in-flight-\($0)-" + String(repeating: "a", count: 140) }
        for token in tokens {
            #expect(try await herald.request("PUT", "/api/v1/devices/\(token)", json: ["platform": "android"]).status == 201)
        }
        var body = campaignJSON(name: "IN-FLIGHT-1", topics: [], schedule: ["kind": "daily", "time": "09:00", "time_zone": "UTC"])
        if case .object(var object) = body {
            object["topics"] = nil
            object["tokens"] = .array(tokens.map { .string($0) })
            body = .object(object)
        }
        let created = try await herald.request("POST", "/api/v1/campaigns", json: body, headers: editor)
        let id = try #require(created.json?["id"]?.stringValue, "\(created.json as Any)")
        try await approveAndSchedule(herald, id, version: 1, editor: editor, publisher: publisher)
        try makeDue(herald, [id])
        #expect(try await eventually(timeout: waitingLimit) { !sink.emulator.sendAttempts().isEmpty })

        let edited = try await put(herald, id, retitled(body, "IN-FLIGHT-2"), version: 1, as: editor)
        #expect(edited.status == 200)
        #expect(edited.json?["approval"]?["runs_held"] == true)
        #expect(try await eventually(timeout: waitingLimit) {
            try await runs(herald, id).first?["variants"]?["A"]?["sent"] == 6
        })
        #expect(titles(sink) == Array(repeating: "IN-FLIGHT-1", count: 6))
        #expect(try await runs(herald, id).first?["campaign_version"] == 1)
    }
}

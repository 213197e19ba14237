import FCMEmulator
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldTestSupport
import Testing
@testable import HeraldApp

/// A new version published while 10,000 devices wait in two journeys: in the one published
/// without moving, each device finishes the version it entered on; in the one whose devices are
/// moved, each goes on from the new version's step of the same name. No device gets a step twice.
@Suite(.serialized) struct JourneyVersionTests {
    let actor = Actor(name: "growth@example.com")
    static let perJourney = 5_000

    static func version(_ tag: String, later: Int) -> JSON {
        ["name": .string("Onboarding \(tag)"), "entry": ["event": .string("signed_up_\(tag)")],
         "steps": [["name": "settle", "type": "wait", "minutes": 60],
                   ["name": "hello", "type": "send", "message": ["notification": ["title": .string("hello \(tag)")], "options": ["labels": "none"]]],
                   ["name": "later", "type": "wait", "minutes": .number(Double(later))],
                   ["name": "bye", "type": "send", "message": ["notification": ["title": .string("bye \(tag)")], "options": ["labels": "none"]]]]]
    }

    @Test(.timeLimit(.minutes(5)))
    func devicesWaitingFinishTheVersionTheyEnteredOnOrMoveWhenChosenAndNoneGetsAStepTwice() async throws {
        let sink = try EmulatorSink()
        let setup = try AudienceDeliveryTests.Setup()
        defer { setup.probe.close() }
        let n = 2 * Self.perJourney
        _ = try setup.probe.connection.execute("""
            INSERT INTO devices (token, platform) SELECT 'version-' || lpad(g::text, 6, '0') || ':APA91b' || repeat('k', 120), 'android'
            FROM generate_series(0, \(n - 1)) AS g
            """)
        func token(_ index: Int) -> String { "version-" + String(repeating: "0", count: 6 - String(index).count) + String(index) + ":APA91b" + String(repeating: "k", count: 120) }
        let journeys = JourneyService(database: setup.database, approvalsRequired: false)
        let events = EventService(database: setup.database, journeys: JourneyEvents())
        // "kept" finishes its versions; "moved" moves its devices to the new one.
        var ids: [String: JourneyID] = [:]
        for tag in ["kept", "moved"] {
            let journey = try journeys.create(Self.version(tag, later: 60), by: actor)
            _ = try journeys.publish(journey.id, expectedVersion: nil, moveDevices: false, by: actor)
            ids[tag] = journey.id
        }
        let clock = JourneyDeliveryTests.Clock()
        let engine = try JourneyDeliveryTests.startEngine(url: setup.url, sink: sink, clock: clock)
        defer { engine.stop() }
        for (offset, tag) in [(0, "kept"), (Self.perJourney, "moved")] {
            for start in stride(from: offset, to: offset + Self.perJourney, by: 500) {
                _ = try events.record(["events": .array((start..<(start + 500)).map {
                    ["id": .string("signup-\($0)"), "event": .string("signed_up_\(tag)"), "device": .string(token($0))]
                })])
            }
        }
        // An hour on: everyone is sent hello and waits at "later".
        clock.advance(minutes: 61)
        engine.journeyBell.ring()
        #expect(try await eventually(timeout: waitingLimit) { sink.emulator.messages().count >= n })

        // Version 2 of each, published while all 10,000 wait; its "later" is 30 minutes, its texts v2's.
        for tag in ["kept", "moved"] {
            let id = try #require(ids[tag])
            let current = try journeys.get(id)
            var draft = Self.version(tag, later: 30).objectValue ?? [:]
            draft["steps"] = .array((draft["steps"]?.arrayValue ?? []).map { step in
                guard case .object(var object) = step, object["type"] == "send" else { return step }
                let title = object["message"]?["notification"]?["title"]?.stringValue ?? ""
                object["message"] = ["notification": ["title": .string(title + " v2")], "options": ["labels": "none"]]
                return .object(object)
            })
            _ = try journeys.update(id, .object(draft), expectedVersion: current.version, by: actor)
            let (published, moved) = try journeys.publish(id, expectedVersion: nil, moveDevices: tag == "moved", by: actor)
            #expect(published.publishedVersion == 2)
            #expect(moved == (tag == "moved" ? Self.perJourney : 0))
        }
        // An hour on again: everyone is past "later" in either version.
        clock.advance(minutes: 61)
        engine.journeyBell.ring()
        #expect(try await eventually(timeout: waitingLimit) {
            let resting = try setup.probe.connection.query("SELECT count(*) FROM journey_states WHERE status = 'active'").first?.decode(Int.self, at: 0)
            return sink.emulator.messages().count >= 2 * n && resting == 0
        })
        let titles = Dictionary(grouping: sink.emulator.messages().map(\.message), by: { $0["token"]?.stringValue ?? "" })
            .mapValues { $0.compactMap { $0["notification"]?["title"]?.stringValue }.sorted() }
        #expect(titles.count == n)
        for index in 0..<n {
            let expected = index < Self.perJourney ? ["bye kept", "hello kept"] : ["bye moved v2", "hello moved"]
            if titles[token(index)] != expected {
                Issue.record("device \(index) got \(titles[token(index)] ?? [])")
                break
            }
        }
        // Each journey's report counts each version's steps apart.
        let moved = try journeys.report(try #require(ids["moved"]))
        #expect(moved.steps.first { $0.version == 1 && $0.name == "hello" }?.sent == Self.perJourney)
        #expect(moved.steps.first { $0.version == 2 && $0.name == "bye" }?.sent == Self.perJourney)
        #expect(moved.steps.first { $0.version == 1 && $0.name == "bye" }?.sent == 0)
        let kept = try journeys.report(try #require(ids["kept"]))
        #expect(kept.steps.first { $0.version == 1 && $0.name == "bye" }?.sent == Self.perJourney)
        #expect(!kept.steps.contains { $0.version == 2 })  // no device of it reached version 2
        let keptID = try #require(ids["kept"])
        #expect(try setup.probe.connection.query("""
            SELECT count(*) FROM journey_states WHERE journey_id = \(keptID)::uuid AND version = 1 AND status = 'completed'
            """).first?.decode(Int.self, at: 0) == Self.perJourney)
    }
}

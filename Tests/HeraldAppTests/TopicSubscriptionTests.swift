import FCMEmulator
import Foundation
import HeraldApp
import HeraldFCM
import HeraldJSON
import HeraldPostgres
import HeraldSync
import HeraldTestSupport
import Testing

/// Server-side topic subscriptions through FCM v1 against the real PostgreSQL and the emulator:
/// FID devices subscribed too, devices FCM says are gone marked invalid, and every instance
/// together at FCM's 3,000 adds or removes a second without a storm of 429s.
@Suite(.serialized) struct TopicSubscriptionTests {
    let actor = Actor(name: "marketer@example.com")
    typealias Setup = AudienceDeliveryTests.Setup
    static func token(_ index: Int) -> String { AudienceDeliveryTests.token(index) }
    static func fid(_ index: Int) -> String { "c" + String(format: "%021d", index) }

    /// Devices of a segment, half by token and half by FID (the kind each registered with).
    static func devices(_ count: Int, country: String = "IR") -> [JSON] {
        (0..<count).map { index in
            index % 2 == 0 ? ["token": .string(token(index)), "platform": "android", "country": .string(country)]
                : ["token": .string(fid(index)), "kind": "fid", "platform": "android", "country": .string(country)]
        }
    }

    /// The v1 API takes an FID as the registration: FID devices are subscribed, none skipped; a
    /// device FCM answers UNREGISTERED for is marked invalid, with the reason.
    @Test(.timeLimit(.minutes(2)))
    func fidDevicesAreSubscribedAndGoneOnesMarkedInvalid() throws {
        let sink = try EmulatorSink(unregistered: [Self.fid(3)])
        let setup = try Setup(sender: sink)
        defer { setup.probe.close() }
        try setup.register(Self.devices(10))
        let segment = try setup.segments.create(["name": "Iran", "rule": ["all": [["field": "country", "equals": "IR"]]]], by: actor)
        let change = try setup.devices.changeTopicToTheEnd(["topic": "news", "segment": .string(segment.id.description)], by: actor)
        #expect(change.devices == 10 && change.changed == 9 && change.failed == 1 && change.skippedFIDs == 0 && change.throttled == 0)
        #expect(change.failures.map(\.token) == [Self.fid(3)] && change.failures.first?.reason == "UNREGISTERED")
        let subscribed = (0..<10).filter { $0 != 3 }.map { $0 % 2 == 0 ? Self.token($0) : Self.fid($0) }
        #expect(sink.emulator.subscribers(of: "news") == Set(subscribed))
        #expect(sink.emulator.instanceIDCallCount == 0)
        #expect(try setup.devices.get(Self.fid(3)).status == .invalid)
        #expect(try setup.probe.connection.query("SELECT invalid_reason FROM devices WHERE token = \(Self.fid(3))")
            .first?.decode(String.self, at: 0).hasPrefix("UNREGISTERED: FCM does not know this registration") == true)

        // Listed through the service, by name, with FCM's creation time.
        let topics = try setup.devices.topics(of: Self.fid(1))
        #expect(topics.map(\.topic) == ["news"] && topics.first?.createTime != nil)
        #expect(throws: AppError.notFound(.device)) { try setup.devices.topics(of: Self.fid(999)) }

        // Time-zone topics reach FID devices too.
        _ = try setup.devices.register(token: Self.fid(5), document: ["kind": "fid", "platform": "android", "time_zone": "Asia/Tehran"])
        let zones = try setup.devices.assignTimeZoneTopicsToTheEnd(by: actor)
        #expect(zones.changed == 1 && sink.emulator.subscribers(of: "tz.Asia.Tehran") == [Self.fid(5)])
    }

    /// One device FCM keeps answering 503 is tried six times over seconds, not minutes, and then
    /// reported (and not marked invalid): the request that asked ends well within a proxy's
    /// 60-second timeout, and the other devices are subscribed.
    @Test(.timeLimit(.minutes(2)))
    func aDeviceFCMKeepsRefusingEndsTheRequestWithinAProxysTimeout() throws {
        let sink = try EmulatorSink { $0.subscriptionUnavailableRegistrations = [Self.token(1)] }
        let setup = try Setup(sender: sink)
        defer { setup.probe.close() }
        try setup.register((0..<3).map { ["token": .string(Self.token($0)), "platform": "android"] })
        let started = ContinuousClock.now
        let change = try setup.devices.changeTopicToTheEnd(["topic": "news", "tokens": .array([Self.token(0), Self.token(1), Self.token(2)].map(JSON.string))], by: actor)
        let elapsed = ContinuousClock.now - started
        #expect(change.changed == 2 && change.failures.map(\.token) == [Self.token(1)] && change.failures.first?.reason == "UNAVAILABLE")
        #expect(sink.emulator.subscriptionRequests().filter { $0.target.contains("device-1%3A") }.count == 6)
        #expect(elapsed < .seconds(30), "the request stayed open \(elapsed)")
        #expect(try setup.devices.get(Self.token(1)).status == .active)
    }

    /// An instance that dies in the middle of a job leaves it at the last batch it recorded:
    /// once its lease has run out another instance goes on from there, so the devices before
    /// that position are not asked for again, and the counts add up to the segment.
    @Test(.timeLimit(.minutes(2)))
    func aJobLeftByADeadInstanceGoesOnFromItsPosition() throws {
        let sink = try EmulatorSink()
        let setup = try Setup(sender: sink)
        defer { setup.probe.close() }
        try setup.register((0..<2500).map { ["token": .string(Self.token($0)), "platform": "android", "country": "IR"] })
        let segment = try setup.segments.create(["name": "Iran", "rule": ["all": [["field": "country", "equals": "IR"]]]], by: actor)
        guard case .queued(let job) = try setup.devices.changeTopic(["topic": "news", "segment": .string(segment.id.description)], by: actor) else {
            Issue.record("a segment's subscription was not queued")
            return
        }
        #expect(job.status == .queued && job.reach == 2500)
        // As a dead instance leaves it: 1,000 devices recorded, its lease run out.
        let tokens = (0..<2500).map(Self.token).sorted()
        _ = try setup.probe.connection.execute("""
            UPDATE topic_subscription_jobs SET status = 'running', lease_owner = 'dead', lease_until = now() - interval '1 second',
                after_token = \(tokens[999]), devices = 1000, changed = 1000, calls = 1000
            WHERE id = \(job.id)
            """)
        #expect(try setup.devices.runTopicJobs(owner: "alive") == 1)
        let finished = try setup.devices.topicJob(job.id.description)
        #expect(finished.status == .done && finished.change.devices == 2500 && finished.change.changed == 2500 && finished.finishedAt != nil)
        #expect(sink.emulator.subscriptionRequests().count == 1500)
        #expect(sink.emulator.subscribers(of: "news") == Set(tokens.suffix(1500)))
        #expect(try setup.devices.runTopicJobs(owner: "alive") == 0, "nothing is left to claim")

        // A job whose segment was deleted before its turn fails, saying so.
        guard case .queued(let orphan) = try setup.devices.changeTopic(["topic": "sport", "segment": .string(segment.id.description)], by: actor) else {
            Issue.record("a segment's subscription was not queued")
            return
        }
        try setup.segments.delete(segment.id, by: actor)
        #expect(try setup.devices.runTopicJobs(owner: "alive") == 1)
        let failed = try setup.devices.topicJob(orphan.id.description)
        #expect(failed.status == .failed && failed.error == "the segment was deleted")
        #expect(throws: AppError.notFound(.topicJob)) { try setup.devices.topicJob("5b4d2ad0-0000-4000-8000-000000000000") }
    }

    /// The Instance ID fallback, chosen: FID devices are left out and said so, and nothing goes to
    /// v1's topicSubscriptions.
    @Test(.timeLimit(.minutes(2)))
    func theInstanceIDFallbackLeavesFIDDevicesOut() throws {
        let sink = try EmulatorSink()
        let setup = try Setup(sender: InstanceIDFallback(sink: sink))
        defer { setup.probe.close() }
        try setup.register(Self.devices(10))
        let tokens = (0..<10).map { $0 % 2 == 0 ? Self.token($0) : Self.fid($0) }
        let change = try setup.devices.changeTopicToTheEnd(["topic": "news", "tokens": .array(tokens.map(JSON.string))], by: actor)
        #expect(change.devices == 5 && change.changed == 5 && change.skippedFIDs == 5 && change.calls == 1)
        #expect(sink.emulator.subscribers(of: "news") == Set((0..<5).map { Self.token($0 * 2) }))
        #expect(sink.emulator.subscriptionRequests().isEmpty && sink.emulator.instanceIDCallCount == 1)
    }

    /// Devices subscribed to a topic by two instances at once (each its own pool, one database),
    /// under the emulator's limit of FCM's 3,000 adds or removes a second: the shared bucket keeps
    /// them both under it, so no request is answered 429, and together they take as long as the
    /// rate says. The suite subscribes 10,000 (HERALD_TOPIC_SUBSCRIPTION_DEVICES sets another
    /// size; deploy/bench/topic-subscriptions runs 100,000).
    @Test(.timeLimit(.minutes(10)))
    func twoInstancesSubscribeADeviceSegmentUnderTheSharedRateWithout429s() async throws {
        let count = ProcessInfo.processInfo.environment["HERALD_TOPIC_SUBSCRIPTION_DEVICES"].flatMap(Int.init) ?? 10_000
        let sink = try EmulatorSink()
        let setup = try Setup(sender: sink)
        defer { setup.probe.close() }
        try setup.register(Self.devices(count / 2, country: "IR") + Self.devices(count, country: "DE").suffix(count - count / 2))
        let iran = try setup.segments.create(["name": "Iran", "rule": ["all": [["field": "country", "equals": "IR"]]]], by: actor)
        let germany = try setup.segments.create(["name": "Germany", "rule": ["all": [["field": "country", "equals": "DE"]]]], by: actor)
        // A second instance: its own pool and sender, the same database.
        let other = DeviceService(database: Database(pool: PostgresPool(url: setup.url, maxConnections: 4, acquireTimeout: .seconds(5))),
                                  sender: try sink.sender())

        // Each segment's job queued by one instance; both instances then work through the jobs at once.
        var jobs: [String] = []
        for (devices, segment) in [(setup.devices, iran.id.description), (other, germany.id.description)] {
            guard case .queued(let job) = try devices.changeTopic(["topic": "everyone", "segment": .string(segment)], by: actor) else {
                Issue.record("a segment's subscription was not queued")
                return
            }
            jobs.append(job.id.description)
        }
        let started = ContinuousClock.now
        let first = setup.devices
        async let firstDone: Void = offThePool { try first.runTopicJobs(owner: "instance-0") }
        async let otherDone: Void = offThePool { try other.runTopicJobs(owner: "instance-1") }
        _ = try await (firstDone, otherDone)
        let elapsed = ContinuousClock.now - started

        let all = try jobs.map { try setup.devices.topicJob($0) }
        #expect(all.allSatisfy { $0.status == .done } && all.map(\.change.changed).reduce(0, +) == count)
        #expect(all.allSatisfy { $0.change.failed == 0 && $0.change.throttled == 0 && $0.reach == $0.change.devices })
        #expect(sink.emulator.subscriptionRequestCounts.throttled == 0, "FCM answered 429: the instances went faster than 3,000 a second together")
        #expect(sink.emulator.subscriptionRequestCounts.all == count)
        #expect(sink.emulator.subscribers(of: "everyone").count == count)
        // At most the bucket's rate and one round of each: a pace the instances kept together.
        let fastest = Double(count - 2 * 150) / 2700
        #expect(elapsed.seconds >= fastest, "\(count) subscriptions in \(elapsed.seconds) s: faster than the shared rate allows")
        print("subscribed \(count) devices by two instances in \(elapsed.seconds) s: \(Double(count) / elapsed.seconds) a second, "
              + "\(sink.emulator.subscriptionRequestCounts.throttled) answered 429")
    }
}

extension DeviceService {
    /// The change a request started, run to its end on this thread: a token list's at once, a
    /// segment's job worked through here as an instance's background service would.
    func changeTopicToTheEnd(_ json: JSON, by actor: Actor) throws -> TopicChange {
        switch try changeTopic(json, by: actor) {
        case .changed(let change):
            return change
        case .queued(let job):
            try runTopicJobs(owner: "test-\(job.id)")
            let finished = try topicJob(job.id.description)
            #expect(finished.status == .done, "\(finished)")
            return finished.change
        }
    }

    /// The time-zone job queued, worked through here as an instance's background service would.
    func assignTimeZoneTopicsToTheEnd(by actor: Actor) throws -> TopicChange {
        let (job, queued) = try queueTimeZoneTopics(by: actor)
        #expect(queued && job.kind == .timeZones && job.topic == nil && job.segmentID == nil)
        try runTopicJobs(owner: "test-\(job.id)")
        let finished = try topicJob(job.id.description)
        #expect(finished.status == .done && finished.reach == finished.change.devices, "\(finished)")
        return finished.change
    }
}

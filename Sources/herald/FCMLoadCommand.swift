#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import HeraldApp
import HeraldFCM
import HeraldJSON
import HeraldSync

/// `herald fcm-load`: the sender as the delivery workers drive it (HERALD_DELIVERY_WORKERS threads,
/// rounds of HERALD_DELIVERY_BATCH_SIZE concurrent requests), against an emulator or a sink, for
/// deploy/bench/sender-peer. Configured like `herald serve` (key, base URL, token URL, CA file).
struct FCMLoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm-load",
        abstract: "Send a fixed number of messages to an FCM emulator or sink as fast as the delivery workers would, and print messages/s.",
        shouldDisplay: false)

    @Option(help: "Messages to send in the measured part.") var messages = 50_000
    @Option(help: "Messages sent first and not measured (token, connections).") var warmup = 2_000

    func validate() throws {
        guard (1...10_000_000).contains(messages) else { throw ValidationError("--messages must be 1…10,000,000") }
        guard (0...1_000_000).contains(warmup) else { throw ValidationError("--warmup must be 0…1,000,000") }
    }

    func run() throws {
        let configuration = try loadConfiguration()
        // Real FCM counts these against the project's quota and delivers them: only a stand-in.
        guard !configuration.fcm.baseURL.contains("googleapis.com") else {
            throw CommandFailure("fcm-load sends real messages: point HERALD_FCM_BASE_URL at an emulator or a sink")
        }
        guard let sender = try SenderSetup.make(configuration, log: Log(minimum: .warning)) else {
            throw CommandFailure("fcm-load needs a service-account key (HERALD_SERVICE_ACCOUNT_KEY)")
        }
        let rounds = DeliveryEngine.Configuration(configuration.delivery, projectID: sender.configuration.projectID)

        let version = try SenderSetup.httpClient(configuration.fcm)
            .perform(HTTPClientRequest(method: "GET", url: configuration.fcm.baseURL + "/", timeout: .seconds(10)))
            .map(\.httpVersion.rawValue)
        print("protocol: \((try? version.get()) ?? "unreachable: \(version)")")
        print("workers: \(rounds.workers), round: \(rounds.batchSize) messages, \(rounds.sendConcurrency) in flight")

        _ = try Self.load(sender, (0..<warmup).map { Self.message(-$0) }, rounds: rounds)
        // Rendered beforehand, as the delivery workers read them rendered from the outbox.
        let bodies = (0..<messages).map(Self.message)
        let started = ContinuousClock.now, cpuBefore = Self.processCPUSeconds()
        let failures = try Self.load(sender, bodies, rounds: rounds)
        let elapsed = ContinuousClock.now - started, cpu = Self.processCPUSeconds() - cpuBefore
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("messages: \(messages), failures: \(failures.count), seconds: \((seconds * 1000).rounded() / 1000)")
        if let first = failures.first { print("first failure: \(first)") }
        // What this process spent per message (user and system): the sender's own cost, apart
        // from the sink's, which shares the machine in a bench.
        print("sender CPU per message: \(Int((cpu / Double(messages) * 1e6).rounded())) µs")
        print("messages/s: \(Int((Double(messages) / seconds).rounded()))")
        if !failures.isEmpty { throw ExitCode.failure }
    }

    /// Sends `bodies` from `rounds.workers` threads, each taking rounds of `rounds.batchSize`
    /// until none are left; answers the failures.
    static func load(_ sender: FCMSender, _ bodies: [[UInt8]], rounds: DeliveryEngine.Configuration) throws -> [String] {
        let state = ConditionLock((left: bodies.count, running: rounds.workers, failures: [String]()))
        for worker in 0..<rounds.workers {
            try startThread(name: "load-\(worker)") {
                while true {
                    let (first, size) = state.withLock { state in
                        let size = min(state.left, rounds.batchSize)
                        state.left -= size
                        return (state.left, size)
                    }
                    guard size > 0 else { break }
                    let batch = Array(bodies[first..<(first + size)])
                    let failed = sender.send(batch: batch, concurrency: rounds.sendConcurrency).compactMap { $0.error?.description }
                    if !failed.isEmpty { state.withLock { $0.failures += failed } }
                }
                state.withLock { $0.running -= 1 }
                state.broadcast()
            }
        }
        return state.wait { $0.running == 0 ? $0.failures : nil }
    }

    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let micros = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + usage.ru_utime.tv_usec + usage.ru_stime.tv_usec
        return Double(micros) / 1e6
    }

    /// A campaign-like topic message of about 400 bytes, numbered so that none repeats.
    static func message(_ number: Int) -> [UInt8] {
        let message: JSON = [
            "topic": "bench",
            "notification": ["title": "Weekend offer", "body": "Free delivery on every order until Sunday night, this app only."],
            "android": ["ttl": "3600s", "notification": ["channel_id": "offers"]],
            "apns": ["headers": ["apns-priority": "10"], "payload": ["aps": ["sound": "default"]]],
            "data": ["campaign": "bench", "n": .string(String(number))],
        ]
        return message.serialized()
    }
}

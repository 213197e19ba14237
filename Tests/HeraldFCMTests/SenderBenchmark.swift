import FCMEmulator
import Foundation
import HeraldFCM
import HeraldJSON
import Testing

/// Messages per second from the sender to the emulator on this machine, and latency percentiles.
/// Runs only with HERALD_BENCH=1 (deploy/bench/sender); sizes come from HERALD_BENCH_MESSAGES and
/// HERALD_BENCH_CONCURRENCY.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["HERALD_BENCH"] == "1"))
struct SenderBenchmark {
    let count = Int(ProcessInfo.processInfo.environment["HERALD_BENCH_MESSAGES"] ?? "") ?? 50_000
    let concurrency = Int(ProcessInfo.processInfo.environment["HERALD_BENCH_CONCURRENCY"] ?? "") ?? 64

    /// A realistic topic message of about 450 bytes, each one different.
    func message(_ index: Int) -> [UInt8] {
        let message: JSON = [
            "topic": "news",
            "notification": ["title": "Flash sale", "body": "Everything in the spring collection is 30% off until midnight."],
            "android": ["ttl": "86400s", "priority": "HIGH", "notification": ["color": "#ff8800", "click_action": "OPEN_SALE"]],
            "apns": ["headers": ["apns-priority": "10", "apns-expiration": "1800000000"], "payload": ["aps": ["category": "OPEN_SALE"]]],
            "webpush": ["headers": ["Urgency": "high", "TTL": "86400"]],
            "data": ["campaign": "c-1234", "variant": "a", "n": .string(String(index))],
            "fcm_options": ["analytics_label": "c-1234_a"],
        ]
        return message.serialized()
    }

    @Test func batchOnOneThread() throws {
        let harness = try EmulatorHarness { $0.messageCapacity = 1000 }
        let (sender, _) = try harness.sender()
        let bodies = (0..<count).map(message)
        _ = sender.send(batch: Array(bodies.prefix(concurrency * 4)), concurrency: concurrency)  // warm up: token, connections

        let cpuBefore = threadCPUTime(), processBefore = processCPUTime()
        let started = ContinuousClock.now
        let outcomes = sender.send(batch: bodies, concurrency: concurrency)
        let elapsed = ContinuousClock.now - started
        let senderCPU = threadCPUTime() - cpuBefore
        let restCPU = processCPUTime() - processBefore - senderCPU

        let failures = outcomes.filter { $0.name == nil }.count
        let seconds = elapsed.secondsDouble
        report("batch (one thread, curl multi, concurrency \(concurrency))", [
            "messages": "\(count)", "failures": "\(failures)",
            "messages/s": String(format: "%.0f", Double(count) / seconds),
            "sender thread CPU": String(format: "%.2f s (%.0f µs/message)", senderCPU, senderCPU / Double(count) * 1e6),
            "emulator + HTTP server CPU": String(format: "%.2f s (%.0f µs/message)", restCPU, restCPU / Double(count) * 1e6),
            "wall": String(format: "%.2f s", seconds),
        ])
        #expect(failures == 0)
    }

    @Test func blockingCallsFromManyThreads() throws {
        let harness = try EmulatorHarness { $0.messageCapacity = 1000 }
        let (sender, _) = try harness.sender()
        _ = sender.send(messageJSON: message(0))
        let threads = min(concurrency, 64)
        let perThread = count / threads
        let latencies = LatencyLog()
        let group = DispatchGroup()
        let started = ContinuousClock.now
        for thread in 0..<threads {
            group.enter()
            Thread {
                var own: [Duration] = []
                own.reserveCapacity(perThread)
                for index in 0..<perThread {
                    let body = message(thread * perThread + index)
                    let began = ContinuousClock.now
                    let outcome = sender.send(messageJSON: body)
                    own.append(ContinuousClock.now - began)
                    if outcome.name == nil { latencies.fail() }
                }
                latencies.add(own)
                group.leave()
            }.start()
        }
        group.wait()
        let elapsed = (ContinuousClock.now - started).secondsDouble
        let sorted = latencies.all.sorted()
        func percentile(_ p: Double) -> String {
            String(format: "%.2f ms", sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))].secondsDouble * 1000)
        }
        report("blocking send from \(threads) threads", [
            "messages": "\(sorted.count)", "failures": "\(latencies.failures)",
            "messages/s": String(format: "%.0f", Double(sorted.count) / elapsed),
            "p50": percentile(0.50), "p90": percentile(0.90), "p99": percentile(0.99),
        ])
        #expect(latencies.failures == 0)
    }

    private func report(_ title: String, _ figures: KeyValuePairs<String, String>) {
        print("BENCH \(title)")
        for (name, value) in figures { print("BENCH   \(name): \(value)") }
    }
}

/// Latencies collected from many threads.
final class LatencyLog: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var all: [Duration] = []
    private(set) var failures = 0
    func add(_ latencies: [Duration]) { lock.withLock { all += latencies } }
    func fail() { lock.withLock { failures += 1 } }
}

/// CPU time used by the whole process (user and system), in seconds.
func processCPUTime() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// CPU time used by the calling thread, in seconds.
func threadCPUTime() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

extension Duration {
    var secondsDouble: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

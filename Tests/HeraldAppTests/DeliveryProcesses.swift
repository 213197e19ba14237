import Foundation
import HeraldTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A `herald serve` child process (posix_spawn: Foundation's Process hangs under Swift Testing
/// here), its output in a file; stopped with a signal.
final class HeraldProcess {
    struct SpawnFailed: Error, CustomStringConvertible {
        var description: String
    }

    let pid: pid_t
    let logPath: String
    private var reaped = false

    /// The binary `deploy/dev/test` names in HERALD_BINARY, else the debug build's.
    static var binary: String {
        ProcessInfo.processInfo.environment["HERALD_BINARY"] ?? TestDatabase.repositoryRoot + "/.build/debug/herald"
    }

    init(databaseURL: String, environment: [String: String]) throws {
        logPath = NSTemporaryDirectory() + "herald-serve-\(UUID().uuidString.prefix(8)).log"
        var variables = ProcessInfo.processInfo.environment
        variables.merge([
            "DATABASE_URL": databaseURL, "HERALD_HOST": "127.0.0.1", "HERALD_PORT": "0",
            "HERALD_MIGRATIONS_DIR": TestDatabase.repositoryRoot + "/Migrations",
            "HERALD_PUBLIC_DIR": TestDatabase.repositoryRoot + "/Public",
            "HERALD_HANDLER_THREADS": "4", "HERALD_EVENT_LOOPS": "1",
        ]) { _, new in new }
        variables.merge(environment) { _, new in new }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let binary = Self.binary
        let argv = [strdup(binary), strdup("serve"), nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // The child would inherit this thread's blocked signals (SIGTERM among them under the
        // test runner) and never see a SIGTERM: start it with none blocked and default handlers.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, binary, &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw SpawnFailed(description: "cannot run \(binary): errno \(spawned)") }
        self.pid = pid
    }

    deinit {
        killAndReap()
        unlink(logPath)
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Waits until the delivery engine has started (bounded), else throws with the log.
    ///
    /// Every wait here sleeps with `Task.sleep`, never `usleep`: Swift Testing runs the tests on
    /// the cooperative pool, as many threads as cores (two on CI), and two tests blocking a thread
    /// each in a poll stopped every other test of the suite for as long as they waited.
    func waitUntilSending(timeout: Duration = waitingLimit) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if log.contains("delivery engine started") { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                reaped = true
                throw SpawnFailed(description: "herald serve exited (status \(status)):\n\(log)")
            }
            // The child's log is the only sign it started: nothing to block on but a poll.
            try await Task.sleep(for: .milliseconds(50))
        }
        throw SpawnFailed(description: "herald serve did not start its engine in time:\n\(log)")
    }

    /// Kills the process while it holds work, once `ready` (the moment the test waits for: so
    /// much sent), and returns how much it held. A kill between two rounds would test nothing, so
    /// the process is frozen (SIGSTOP) and `held` read: killed if it holds any, else let go on and
    /// tried again a moment later. Frozen, it changes nothing, so the count is exactly what it held
    /// when it died.
    ///
    /// The whole of it runs on a thread of its own: polled from the test's pool, the moment came
    /// seconds late on a busy suite while the child sent on (once it had read its whole audience
    /// before the kill, and the test's premise failed).
    func killHoldingWork(once ready: @escaping () throws -> Bool = { true }, timeout: Duration = waitingLimit,
                         held: @escaping () throws -> Int) async throws -> Int {
        let work = Unchecked { [self] in try killHoldingWorkNow(once: ready, timeout: timeout, held: held) }
        return try await offThePool { try work.value() }
    }

    private func killHoldingWorkNow(once ready: () throws -> Bool, timeout: Duration, held: () throws -> Int) throws -> Int {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        // What the test waits for has no hook of its own: a poll, on this thread.
        while try !ready(), clock.now < deadline { usleep(10_000) }
        while true {
            kill(pid, SIGSTOP)
            waitUntilFrozen()
            let count = try held()
            if count > 0 || clock.now >= deadline {
                killAndReap()
                return count
            }
            kill(pid, SIGCONT)
            // Lets the child run on for a moment, until it holds work: the moment is the test's lever.
            usleep(20_000)
        }
    }

    /// Waits (bounded) until the kernel shows the process stopped: SIGSTOP is delivered
    /// asynchronously, and a query read before it lands could race a round's last write.
    private func waitUntilFrozen() {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: waitingLimit)
        while clock.now < deadline {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            // The state follows the command name, which is in parentheses and may hold spaces.
            if let close = stat.lastIndex(of: ")"), stat[close...].dropFirst(2).first == "T" { return }
            // The kernel's state of another process can only be polled.
            usleep(1_000)
        }
    }

    /// Sends `signal` and reaps the process; one that is still there after `timeout` is killed.
    /// Returns whether it exited by itself.
    @discardableResult
    func stop(_ signal: Int32, timeout: Duration = .seconds(45)) async -> Bool {
        guard !reaped else { return true }
        kill(pid, signal)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard clock.now < deadline else {
                killAndReap()
                return false
            }
            // Without SIGCHLD handling, a child's exit can only be polled.
            try? await Task.sleep(for: .milliseconds(10))
        }
        reaped = true
        return true
    }

    /// SIGKILL and the reaping, which the kernel does at once: no wait worth leaving the thread for.
    func killAndReap() {
        guard !reaped else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        reaped = true
    }
}

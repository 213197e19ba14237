import Glibc
import Synchronization

/// The write end of the self-pipe; the only thing the signal handler touches.
nonisolated(unsafe) private var signalPipeWriteFD: Int32 = -1
private let signalWatcherStarted = Atomic<Bool>(false)

extension HTTPServer {
    /// Makes SIGTERM and SIGINT start a graceful `shutdown()` of `servers`; a second signal exits
    /// at once with status 1. The signal handler only writes a byte to a pipe (async-signal-safe);
    /// a watcher thread reads it and does the real work. Call once, after `start()`.
    public static func shutdownOnSignals(_ servers: [HTTPServer]) throws {
        guard !signalWatcherStarted.exchange(true, ordering: .acquiringAndReleasing) else {
            throw SystemCallError(call: "HTTPServer.shutdownOnSignals (already installed)", errno: EBUSY)
        }
        var fds: [Int32] = [0, 0]
        _ = try blockingSystemCall("pipe") { pipe(&fds) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let (readFD, writeFD) = (fds[0], fds[1])
        // The writer must never block inside a signal handler.
        _ = fcntl(writeFD, F_SETFL, fcntl(writeFD, F_GETFL) | O_NONBLOCK)
        signalPipeWriteFD = writeFD

        try startServerThread(name: "herald-signals") {
            var signals = 0
            var byte: UInt8 = 0
            while true {
                let count = read(readFD, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                signals += 1
                if signals > 1 { _exit(1) }
                for server in servers { server.shutdown() }
            }
        }

        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            let saved = errno
            var byte: UInt8 = 1
            _ = write(signalPipeWriteFD, &byte, 1)
            errno = saved
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        for signal in [SIGTERM, SIGINT] {
            _ = try blockingSystemCall("sigaction") { sigaction(signal, &action, nil) }
        }
    }
}

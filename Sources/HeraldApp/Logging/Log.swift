#if canImport(Glibc)
import Glibc
#endif
import HeraldJSON
import Synchronization

/// Structured logs: one JSON object per line on standard error, so a log shipper can read them
/// without a parser of ours. Secrets never go through here: callers log names and ids, not values.
public final class Log: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
        var name: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    let minimum: Level
    let sink: (@Sendable ([UInt8]) -> Void)?
    let lock = Mutex(())

    /// Lines go to standard error, or to `sink` (tests read them there).
    public init(minimum: Level = .info, sink: (@Sendable ([UInt8]) -> Void)? = nil) {
        self.minimum = minimum
        self.sink = sink
    }

    public func debug(_ message: String, _ fields: JSONObject = [:]) { write(.debug, message, fields) }
    public func info(_ message: String, _ fields: JSONObject = [:]) { write(.info, message, fields) }
    public func warning(_ message: String, _ fields: JSONObject = [:]) { write(.warning, message, fields) }
    public func error(_ message: String, _ fields: JSONObject = [:]) { write(.error, message, fields) }

    public func write(_ level: Level, _ message: String, _ fields: JSONObject) {
        guard level >= minimum else { return }
        var line: JSONObject = ["time": .string(Self.timestamp()), "level": .string(level.name), "message": .string(message)]
        for (key, value) in fields { line[key] = value }
        var bytes = JSON.object(line).serialized()
        bytes.append(0x0A)
        // One write(2) per line under the lock, so lines from several threads never interleave.
        if let sink {
            lock.withLock { _ in sink(bytes) }
            return
        }
        lock.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }

    /// RFC 3339 UTC with milliseconds, from the system clock without Foundation.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(now.tv_nsec / 1_000_000), 3))Z"
    }
}

import Foundation
import Glibc

/// A PostgreSQL cluster of one test's own, in a temporary folder on a free port, driven by
/// `deploy/dev/postgres` so that the test can stop and start the server.
public final class ThrowawayCluster {
    public struct ScriptFailed: Error, CustomStringConvertible {
        public var description: String
    }

    public let directory: String
    public let port: Int
    public private(set) var url = ""

    private static let script = TestDatabase.repositoryRoot + "/deploy/dev/postgres"

    public init() throws {
        directory = "/tmp/herald-pg-test-" + UUID().uuidString.prefix(8).lowercased()
        port = try Self.freePort()
        try start()
    }

    public func start() throws {
        url = try run("start", directory, String(port)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func stop() throws {
        _ = try run("stop", directory)
    }

    /// Stops the server and deletes its folder.
    public func destroy() {
        _ = try? stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs the script with posix_spawn and waitpid. (Foundation's Process.waitUntilExit can
    /// miss the child's exit under Swift Testing's threads and hang.)
    private func run(_ arguments: String...) throws -> String {
        let outputPath = directory + ".out", errorPath = directory + ".err"
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([Self.script] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, Self.script, &actions, nil, argv, environ)
        guard spawned == 0 else { throw ScriptFailed(description: "cannot run \(Self.script): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw ScriptFailed(description: "deploy/dev/postgres \(arguments.joined(separator: " ")) failed: \(errors)")
        }
        return output
    }

    /// A port the kernel just handed out on 127.0.0.1 (free now; PostgreSQL cannot take port 0).
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ScriptFailed(description: "socket() failed: errno \(errno)") }
        defer { Glibc.close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound else { throw ScriptFailed(description: "could not find a free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

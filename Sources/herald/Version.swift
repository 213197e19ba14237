import Foundation

/// What `herald --version` prints. The version is kept here and nowhere else; the commit comes
/// from the build: `deploy/release/build` (and so the container image) writes it to `VERSION`
/// beside `bin/` (from `HERALD_VERSION`, else `git rev-parse --short HEAD`), and a binary run
/// from a release folder reads it there. A `swift build` binary has none and says so.
enum HeraldVersion {
    static let version = "1.0.0"

    /// `herald 1.0.0 (commit 1ebd440)`, or `herald 1.0.0 (development build)`.
    static var description: String {
        guard let commit = releaseCommit() else { return "herald \(version) (development build)" }
        return "herald \(version) (commit \(commit))"
    }

    /// The first line of `<release folder>/VERSION`, when this binary is `<release folder>/bin/herald`.
    static func releaseCommit() -> String? {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let file = executable.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("VERSION")
        guard let text = try? String(contentsOf: file, encoding: .utf8),
              let line = text.split(separator: "\n").first?.trimmingCharacters(in: .whitespaces), !line.isEmpty
        else { return nil }
        return line
    }
}

/// A failure of a command while it runs: ArgumentParser prints `Error: <description>` and exits 1,
/// without the usage text (which, thrown from `run()`, would be the top command's, not this one's).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

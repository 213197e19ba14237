import HeraldSync
import Foundation
import HeraldApp
import HeraldHTTP
import HeraldJSON

/// The outermost step: gives the request its id (the client's `X-Request-Id` when sane, else a
/// new one), answers it in `X-Request-Id`, counts the request by route pattern (not by path,
/// which would make a metric per campaign id) and writes the access line with the same id.
struct Observation: Sendable {
    let log: Log
    let metrics: Metrics

    /// Methods outside this set share the label "other": a label per method a client invents
    /// would let anyone grow the metrics without bound.
    static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    static func requestID(_ request: HTTPRequest) -> String {
        let incoming = request.headers["X-Request-Id"] ?? ""
        let sane = !incoming.isEmpty && incoming.utf8.count <= 128
            && incoming.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) }
        return sane ? incoming : RequestID.next()
    }

    func observe(_ request: HTTPRequest, _ handle: (String) -> (response: HTTPResponse, pattern: String?, client: String)) -> HTTPResponse {
        let clock = ContinuousClock()
        let start = clock.now
        let requestID = Self.requestID(request)
        var (response, pattern, client) = handle(requestID)
        let route = pattern ?? "unmatched"
        response.headers.set("X-Request-Id", requestID)
        let elapsed = start.duration(to: clock.now)
        let seconds = elapsed.seconds
        let method = Self.knownMethods.contains(request.method.rawValue) ? request.method.rawValue : "other"
        metrics.recordRequest(method: method, route: route, status: response.status, seconds: seconds)
        if request.path != "/healthz" && request.path != "/metrics" {
            log.info("request", JSONObject(distinctKeys: [
                ("request_id", .string(requestID)), ("method", .string(request.method.rawValue)),
                ("path", .string(Self.loggedPath(request.path, pattern: pattern))), ("route", .string(route)),
                ("status", .number(Double(response.status))), ("duration_ms", .number((seconds * 1_000_000).rounded() / 1000)),
                ("remote", .string(client))]))
        }
        return response
    }

    /// The path as the access line writes it: a device's token or FID (a `{token}` segment of the
    /// route) is written as `{token}`, since a log line cannot be taken back when the device is
    /// forgotten; everything else as requested.
    static func loggedPath(_ path: String, pattern: String?) -> String {
        guard let pattern, mentionsToken(pattern) else { return path }
        let names = pattern.split(separator: "/", omittingEmptySubsequences: false)
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for (index, name) in names.enumerated() where name == "{token}" && segments.indices.contains(index) { segments[index] = "{token}" }
        return segments.joined(separator: "/")
    }

    /// Whether `pattern` holds `{token}`, compared as bytes: with Foundation imported,
    /// `String.contains` is its locale-aware search, 3,600 instructions on every access line.
    static func mentionsToken(_ pattern: String) -> Bool {
        let token: StaticString = "{token}"
        let wanted = UnsafeBufferPointer(start: token.utf8Start, count: token.utf8CodeUnitCount)
        var pattern = pattern
        return pattern.withUTF8 { bytes in
            guard bytes.count >= wanted.count else { return false }
            return (0...(bytes.count - wanted.count)).contains { start in
                UnsafeBufferPointer(rebasing: bytes[start..<(start + wanted.count)]).elementsEqual(wanted)
            }
        }
    }
}

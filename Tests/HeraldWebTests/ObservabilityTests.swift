@testable import HeraldApp
import HeraldHTTP
import HeraldJSON
import HeraldPostgres
import Synchronization
import Testing

/// What an operator reads: Prometheus metrics that parse, and one log line per request carrying
/// the request id the client also gets back.
@Suite struct ObservabilityTests {
    final class Lines: Sendable {
        let lines = Mutex<[JSON]>([])
        func append(_ bytes: [UInt8]) {
            if let line = try? JSON.parse(bytes.dropLast()) { lines.withLock { $0.append(line) } }
        }
    }

    @Test func eachRequestLogsOneLineWithTheIDItAnswers() async throws {
        let lines = Lines()
        let herald = try TestHerald(log: Log(minimum: .info) { lines.append($0) })
        let mine = try await herald.request("GET", "/api/v1/campaigns", headers: ["X-Request-Id": "trace-42"])
        #expect(mine.header("X-Request-Id") == "trace-42")
        let generated = try await herald.request("GET", "/api/v1/campaigns?limit=1")
        let id = try #require(generated.header("X-Request-Id"))
        #expect(id.count == 36)
        let requests = lines.lines.withLock { $0 }.filter { $0["message"] == "request" }
        let line = try #require(requests.first { $0["request_id"]?.stringValue == id })
        #expect(line["method"] == "GET")
        #expect(line["path"] == "/api/v1/campaigns")
        #expect(line["status"] == 200)
        #expect(line["duration_ms"]?.doubleValue != nil)
        #expect(requests.contains { $0["request_id"] == "trace-42" })
        // A hostile id is not echoed into logs or headers.
        let hostile = try await herald.request("GET", "/healthz", headers: ["X-Request-Id": "a b\"c"])
        #expect(hostile.header("X-Request-Id") != "a b\"c")
    }

    /// An error deep in a request (the audit log refuses the write) logs a line with the same
    /// request id as the request's access line and its `X-Request-Id`, so the two can be joined.
    @Test func aRequestsErrorLineAndAccessLineShareItsRequestID() async throws {
        let lines = Lines()
        let herald = try TestHerald(log: Log(minimum: .info) { lines.append($0) })
        try herald.server.application.database.pool.withConnection { connection in
            try connection.executeScript("""
                CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'injected: the audit log refuses'; END $$;
                CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_audit();
                """)
        }
        let response = try await herald.request("POST", "/api/v1/campaigns", json: CampaignsAPITests.campaign(),
                                                headers: ["X-Request-Id": "joined-7"])
        #expect(response.status == 500)
        #expect(response.header("X-Request-Id") == "joined-7")
        let mine = lines.lines.withLock { $0 }.filter { $0["request_id"] == "joined-7" }
        let error = try #require(mine.first { $0["level"] == "error" })
        #expect(error["message"]?.stringValue?.contains("injected: the audit log refuses") == true)
        #expect(error["path"] == "/api/v1/campaigns")
        #expect(mine.contains { $0["message"] == "request" && $0["status"] == 500 })
    }

    /// A client inventing methods cannot grow the metrics: unknown methods share one label.
    @Test func inventedMethodsShareOneMetricsLabel() throws {
        let herald = try TestHerald()
        for index in 0..<200 {
            let method = HTTPMethod(rawValue: "X" + String(repeating: "Q", count: index % 50) + String(index))
            _ = herald.server.respond(HTTPRequest(method: method, target: "/", headers: HTTPHeaders(), body: [], remoteAddress: "127.0.0.1:1"))
        }
        let text = String(decoding: herald.server.respond(HTTPRequest(method: .get, target: "/metrics", headers: HTTPHeaders(), body: [],
                                                                       remoteAddress: "127.0.0.1:1")).body, as: UTF8.self)
        #expect(!text.contains("method=\"XQ"))
        #expect(text.contains(#"herald_http_requests_total{method="other",route="unmatched",status="405"} 200"#))
    }

    /// JSON answers (a new API key among them) are neither cached nor sniffed.
    @Test func jsonAnswersAreNotStoredOrSniffed() async throws {
        let herald = try TestHerald()
        for path in ["/api/v1/campaigns", "/api/v1/nothing-here", "/healthz"] {
            let response = try await herald.request("GET", path)
            #expect(response.header("Cache-Control") == "no-store", "\(path)")
            #expect(response.header("X-Content-Type-Options") == "nosniff", "\(path)")
        }
        let key = try await herald.request("POST", "/api/v1/api-keys", json: ["name": "cached?", "role": "viewer"])
        #expect(key.status == 201)
        #expect(key.header("Cache-Control") == "no-store")
    }

    /// A failed sign-in logs a hash of what was typed as the e-mail, never the text itself.
    @Test func aFailedSignInLogsTheTypedEmailHashed() async throws {
        let lines = Lines()
        let herald = try TestHerald(log: Log(minimum: .info) { lines.append($0) })
        let typed = "MyPassw0rd-typed-in-the-wrong-field"
        let response = try await herald.request("POST", "/sign-in", body: Array("csrf_token=t&email=\(typed)&password=whatever".utf8),
                                                headers: ["Content-Type": "application/x-www-form-urlencoded", "Cookie": "herald_signin=t"],
                                                authenticated: false)
        #expect(response.status == 401)
        let failed = try #require(lines.lines.withLock { $0 }.first { $0["message"] == "sign-in failed" })
        #expect(failed["email_sha256"]?.stringValue?.count == 64)
        #expect(!failed.serializedString().contains(typed))
    }

    /// A client looping on a bad API key writes one warning a minute, not one a request.
    @Test func rejectedAPIKeysAreLoggedOnceAMinuteAtMost() throws {
        let lines = Lines()
        let herald = try TestHerald(log: Log(minimum: .info) { lines.append($0) })
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer hk_not-a-key")
        for _ in 0..<100 {
            let response = herald.server.respond(HTTPRequest(method: .get, target: "/api/v1/campaigns", headers: headers, body: [],
                                                             remoteAddress: "127.0.0.1:1"))
            #expect(response.status == 401)
        }
        let warnings = lines.lines.withLock { $0 }.filter { $0["message"] == "rejected API key" }
        #expect(warnings.count == 1)
        #expect(warnings.first?["similar_lines_held_back"] == 0)
    }

    @Test func metricsParseAsPrometheusText() async throws {
        let herald = try TestHerald()
        _ = try await herald.request("GET", "/api/v1/campaigns")
        _ = try await herald.request("GET", "/api/v1/nothing")
        let response = try await herald.request("GET", "/metrics")
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = String(decoding: response.data, as: UTF8.self)
        var samples: [String: Double] = [:]
        var typed: Set<String> = []
        let sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? (-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|[-+]Inf|NaN)$/
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                #expect(parts.count == 4 && ["counter", "gauge", "histogram"].contains(parts[3]), "bad TYPE line: \(line)")
                typed.insert(String(parts[2]))
                continue
            }
            if line.hasPrefix("# HELP ") { continue }
            let match = try #require(try sample.wholeMatch(in: String(line)), "not a Prometheus sample: \(line)")
            let name = String(match.1)
            let family = ["_bucket", "_sum", "_count"].reduce(name) { $0.hasSuffix($1) && !typed.contains($0) ? String($0.dropLast($1.count)) : $0 }
            #expect(typed.contains(family), "sample \(name) has no TYPE line")
            samples[String(line.split(separator: " ")[0])] = Double(match.4)
        }
        #expect(samples[#"herald_http_requests_total{method="GET",route="/api/v1/campaigns",status="200"}"#] == 1)
        #expect(samples[#"herald_http_requests_total{method="GET",route="unmatched",status="404"}"#] == 1)
        #expect(samples["herald_db_pool_open_connections"].map { $0 >= 1 } == true)
        #expect(samples[#"herald_http_request_duration_seconds_bucket{method="GET",route="/api/v1/campaigns",le="+Inf"}"#] == 1)
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HeraldJSON
import Testing

/// The devices REST API over real sockets: what an app's backend and a tool see.
@Suite(.serialized) final class DevicesAPITests {
    let herald: TestHerald

    init() throws {
        herald = try TestHerald()
    }

    static func token(_ n: Int) -> String { "device-\(n)-" + String(repeating: "a", count: 140) }

    @Test func devicesAreRegisteredOnceListedByFilterAndPagedByCursor() async throws {
        let first = try await herald.request("PUT", "/api/v1/devices/\(Self.token(1))", json: ["platform": "android", "language": "fa_ir"])
        #expect(first.status == 201)
        #expect(first.json?["language"] == "fa-IR")
        let again = try await herald.request("PUT", "/api/v1/devices/\(Self.token(1))", json: ["platform": "android", "language": "fa"])
        #expect(again.status == 200)
        for n in 2...3 {
            #expect(try await herald.request("PUT", "/api/v1/devices/\(Self.token(n))", json: ["platform": "ios", "language": "he"]).status == 201)
        }
        let persian = try await herald.request("GET", "/api/v1/devices?language=fa")
        #expect(persian.json?["items"]?.arrayValue?.compactMap { $0["token"]?.stringValue } == [Self.token(1)])

        let page = try await herald.request("GET", "/api/v1/devices?platform=ios&limit=1")
        let cursor = try #require(page.json?["next_cursor"]?.stringValue)
        let rest = try await herald.request("GET", "/api/v1/devices?platform=ios&limit=1&cursor=\(cursor)")
        let seen = [page, rest].flatMap { $0.json?["items"]?.arrayValue?.compactMap { $0["token"]?.stringValue } ?? [] }
        #expect(Set(seen) == [Self.token(2), Self.token(3)])
    }

    /// PostgreSQL text cannot hold NUL: a query naming one is the caller's mistake (400, which
    /// parameter), never a 422 from the store.
    @Test func aQueryParameterHoldingNULIsRefusedByName() async throws {
        for query in ["cursor=ab%00cd", "q=%00", "language=fa%00"] {
            let refused = try await herald.request("GET", "/api/v1/devices?\(query)")
            #expect(refused.status == 400, "\(query)")
            let error = refused.json?["errors"]?.arrayValue?.first
            #expect(error?["code"] == "nul_character", "\(query)")
            #expect(error?["path"]?.stringValue == String(query.prefix { $0 != "=" }), "\(query)")
        }
        // Nor can a token: one holding NUL is simply not registered.
        #expect(try await herald.request("GET", "/api/v1/devices/ab%00cd").status == 404)
        #expect(try await herald.request("DELETE", "/api/v1/devices/ab%00cd").status == 404)
        let unknown = try await herald.request("GET", "/api/v1/devices?colour=red")
        #expect(unknown.status == 400)
        #expect(unknown.json?["errors"]?.arrayValue?.first?["code"] == "unknown_parameter")
    }

    /// A CSV of `rows` devices with 150-character tokens (about 175 bytes a row).
    static func csv(rows: Int) -> [UInt8] {
        var csv = "token,platform,language,first_name\n"
        for n in 1...rows { csv += "\(token(n)),android,fa,Sara\(n)\n" }
        return Array(csv.utf8)
    }

    /// An import is read as it arrives, not held whole: a file five times the body limit (1 MiB)
    /// is stored to the last row.
    @Test func anImportFarOverTheBodyLimitIsReadAsItArrivesAndStoredWhole() async throws {
        let csv = Self.csv(rows: 30_000)
        #expect(csv.count > 5_000_000)
        let answer = try await herald.request("POST", "/api/v1/device-imports", body: csv, headers: ["Content-Type": "text/csv"])
        #expect(answer.status == 200, "\(answer.status) \(String(decoding: answer.data, as: UTF8.self).prefix(300))")
        #expect(answer.json?["rows"] == 30_000 && answer.json?["created"] == 30_000 && answer.json?["failed"] == 0)
        #expect(try await herald.request("GET", "/api/v1/device-counts").json?["active"] == 30_000)
    }

    /// Over HERALD_MAX_IMPORT_BYTES: a file that says its length is refused before a row is read;
    /// one sent in chunks is read up to the limit, then refused with how many devices were stored
    /// (whole batches), which is what the registry then holds.
    @Test func anImportOverItsLimitIsRefusedAndSaysWhatItStored() async throws {
        let limited = try TestHerald(environment: ["HERALD_MAX_IMPORT_BYTES": String(1 << 20)])
        let csv = Self.csv(rows: 12_000)
        let announced = try await limited.request("POST", "/api/v1/device-imports", body: csv, headers: ["Content-Type": "text/csv"])
        #expect(announced.status == 413)
        #expect(try await limited.request("GET", "/api/v1/device-counts").json?["active"] == 0)

        var request = URLRequest(url: URL(string: limited.baseURL + "/api/v1/device-imports")!)
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data(csv))
        request.setValue("text/csv", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(limited.apiKey)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await limited.session.data(for: request)
        let problem = try JSON.parse(Array(data))
        #expect((response as? HTTPURLResponse)?.statusCode == 413, "\(problem)")
        #expect(problem["code"] == "import_interrupted" && problem["stored_devices"] == 5000)
        #expect(problem["detail"]?.stringValue?.contains("5000 devices were stored before it stopped") == true, "\(problem)")
        #expect(try await limited.request("GET", "/api/v1/device-counts").json?["active"] == 5000)
    }
}

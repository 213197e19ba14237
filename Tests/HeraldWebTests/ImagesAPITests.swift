@testable import HeraldApp
import HeraldTestSupport
import Foundation
import HeraldJSON
import Testing

/// `POST /api/v1/images`: the browser's upload for API clients, and image URLs built from how the
/// client really reaches Herald (its scheme and host, or `HERALD_PUBLIC_URL`).
@Suite(.serialized) final class ImagesAPITests {
    static func multipart(_ name: String, filename: String, _ bytes: [UInt8]) -> (body: [UInt8], contentType: String) {
        let boundary = "herald-test-boundary"
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        body += bytes
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    func upload(_ herald: TestHerald, _ bytes: [UInt8], part: String = "file", headers: [String: String] = [:]) async throws -> TestHerald.Response {
        let form = Self.multipart(part, filename: "photo.bin", bytes)
        return try await herald.request("POST", "/api/v1/images", body: form.body,
                                        headers: headers.merging(["Content-Type": form.contentType]) { own, _ in own })
    }

    /// The images uploaded so far, newest first, a page at a time: what a client picks from
    /// (it was 405 before).
    @Test func theUploadedImagesAreListedNewestFirstAPageAtATime() async throws {
        let herald = try TestHerald(environment: ["HERALD_SCHEDULER": "false"])
        #expect(try await herald.request("GET", "/api/v1/images").json == ["items": [], "next_cursor": .null])
        var paths: [String] = []
        for width in [100, 200, 300] {
            let uploaded = try await upload(herald, ImageInspectorTests.png(width: width, height: 50, total: 2048))
            paths.append(try #require(uploaded.json?["path"]?.stringValue))
        }
        let first = try await herald.request("GET", "/api/v1/images?limit=2")
        #expect(first.status == 200)
        let items = first.json?["items"]?.arrayValue ?? []
        #expect(items.compactMap { $0["path"]?.stringValue } == [paths[2], paths[1]])
        #expect(items.first?["width"] == 300 && items.first?["uploaded_by"] == "api-key:tests" && items.first?["created_at"]?.stringValue?.hasSuffix("Z") == true, "\(items.first ?? .null)")
        let cursor = try #require(first.json?["next_cursor"]?.stringValue)
        let second = try await herald.request("GET", "/api/v1/images?limit=2&cursor=\(cursor)")
        #expect(second.json?["items"]?.arrayValue?.compactMap { $0["path"]?.stringValue } == [paths[0]])
        #expect(second.json?["next_cursor"] == .null)
        let wrong = try await herald.request("GET", "/api/v1/images?cursor=\(String(repeating: "0", count: 64))")
        #expect(wrong.status == 400 && wrong.json?["code"] == "invalid_query")
        #expect(wrong.json?["errors"]?.arrayValue?.first?["path"] == "cursor")
        #expect(try await herald.request("GET", "/api/v1/images?limit=0").status == 400)
    }

    @Test func anImageUploadedAsMultipartOrRawIsStoredOnceAndItsURLLoadsAndIsAcceptedInACampaign() async throws {
        let herald = try TestHerald(environment: ["HERALD_SCHEDULER": "false"])
        let png = ImageInspectorTests.png(width: 800, height: 400, total: 10 * 1024)
        let uploaded = try await upload(herald, png)
        #expect(uploaded.status == 201)
        let json = try #require(uploaded.json)
        let url = try #require(json["url"]?.stringValue)
        #expect(url.hasPrefix(herald.baseURL + "/images/") && url.hasSuffix(".png"), "\(url)")
        #expect(uploaded.header("Location") == url)
        #expect(json["width"] == 800 && json["height"] == 400 && json["bytes"] == .number(Double(png.count)))
        #expect(json["content_type"] == "image/png")
        let served = try await herald.request("GET", try #require(json["path"]?.stringValue), authenticated: false)
        #expect(Array(served.data) == png)

        let raw = try await herald.request("POST", "/api/v1/images", body: png, headers: ["Content-Type": "image/png"])
        #expect(raw.status == 201)
        #expect(raw.json?["url"]?.stringValue == url)

        let campaign = try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "With image", "notification": ["title": "Hi", "image": .string(url)], "topics": ["news"]])
        #expect(campaign.status == 201)
    }

    @Test func anUploadIsRefusedForTheSameReasonsAsInTheBrowser() async throws {
        let herald = try TestHerald(environment: ["HERALD_SCHEDULER": "false"])
        let big = try await upload(herald, ImageInspectorTests.png(total: 301 * 1024))
        #expect(big.status == 422)
        #expect(big.json?["errors"]?.arrayValue?.first?["path"] == "file")
        #expect(big.json?["errors"]?.arrayValue?.first?["message"]?.stringValue?.contains("The image is 301 KB; the limit is 300 KB") == true)
        let html = try await herald.request("POST", "/api/v1/images", body: Array("<html>".utf8), headers: ["Content-Type": "image/gif"])
        #expect(html.status == 422)
        #expect(html.json?["errors"]?.arrayValue?.first?["message"]?.stringValue?.contains("not a PNG, JPEG or GIF image") == true)
        let misnamed = try await upload(herald, ImageInspectorTests.png(), part: "image")
        #expect(misnamed.status == 422)
        #expect(misnamed.json?["errors"]?.arrayValue?.first?["path"] == "file")
        let text = try await herald.request("POST", "/api/v1/images", body: Array("x".utf8), headers: ["Content-Type": "text/plain"])
        #expect(text.status == 415)
        #expect(text.header("Content-Type") == "application/problem+json")
        let stored = try herald.server.application.database.pool.withConnection { try $0.query("SELECT count(*) FROM images").map { try $0.decode(Int.self, at: 0) } }
        #expect(stored == [0])
    }

    @Test func behindATrustedTLSProxyTheURLIsHTTPSAndHERALD_PUBLIC_URLWinsOverEverything() async throws {
        let proxied = try TestHerald(environment: ["HERALD_SCHEDULER": "false", "HERALD_TRUST_FORWARDED_FOR": "true"])
        let forwarded = try await upload(proxied, ImageInspectorTests.png(),
                                         headers: ["X-Forwarded-Proto": "https", "X-Forwarded-Host": "herald.example.com"])
        #expect(forwarded.json?["url"]?.stringValue?.hasPrefix("https://herald.example.com/images/") == true)
        let configured = try TestHerald(environment: ["HERALD_SCHEDULER": "false", "HERALD_PUBLIC_URL": "https://push.example.org/"])
        let fixed = try await upload(configured, ImageInspectorTests.png(), headers: ["X-Forwarded-Proto": "http"])
        #expect(fixed.json?["url"]?.stringValue?.hasPrefix("https://push.example.org/images/") == true)
    }
}

import Foundation
import HeraldCore
import HeraldJSON
import HeraldTestSupport
import Testing

/// Every CSV Herald writes, read as a spreadsheet reads it: no cell that a device, an import or
/// an editor filled starts a formula. The exports: devices (`/api/v1/device-export`, the devices
/// page's link and `herald devices export` all write `DeviceService.exportCSV`), and the campaign
/// report (`?format=csv`, `Accept: text/csv`, and the page's `report.csv`).
@Suite(.serialized) struct CSVExportTests {
    static func records(_ bytes: some Sequence<UInt8>) throws -> [[String]] {
        var reader = CSVRecordReader()
        let records = reader.feed(Array(bytes)) + [reader.finish()].compactMap { $0 }
        return try records.map { try $0.content.get() }
    }

    @Test(.timeLimit(.minutes(3)))
    func everyInjectionStringIsExportedNeutralisedFromTheDeviceExport() async throws {
        let browser = try PagesBrowser(role: .admin)
        let herald = browser.harness.herald
        var tokens: [String: String] = [:]
        for (index, text) in CSVInjection.strings.enumerated() {
            let token = "-\(index)-device:\(index)"  // a registration token may start with -
            let put = try await herald.request("PUT", "/api/v1/devices/\(token)", json: [
                "platform": "android", "app_id": .string(text), "properties": ["city": .string(text), "note": "plain"]])
            #expect(put.status == 200 || put.status == 201, "\(text.debugDescription): \(put.json as Any)")
            tokens[token] = text
        }
        let fromAPI = try await herald.request("GET", "/api/v1/device-export")
        let fromPage = browser.get("/api/v1/device-export")
        #expect(fromAPI.status == 200 && fromPage.status == 200 && Array(fromAPI.data) == fromPage.body)
        let rows = try Self.records(fromAPI.data)
        let header = try #require(rows.first)
        #expect(header.prefix(4) == ["token", "kind", "platform", "app_id"])
        let city = try #require(header.firstIndex(of: "properties.city"))
        #expect(rows.count == tokens.count + 1)
        for row in rows.dropFirst() {
            #expect(!row.contains(where: CSVInjection.runsAsFormula), "a cell runs as a formula: \(row)")
            let token = String(row[0].dropFirst())
            let text = try #require(tokens[token], "\(row[0])")
            #expect(row[0] == "'" + token && row[3] == "'" + text && row[city] == "'" + text)
        }

        // The export imports back as it was: the guard is taken off again.
        let imported = try await herald.request("POST", "/api/v1/device-imports", body: Array(fromAPI.data), headers: ["Content-Type": "text/csv"])
        #expect(imported.status == 200 && imported.json?["failed"]?.doubleValue == 0, "\(imported.json as Any)")
        for (token, text) in tokens {
            let device = try await herald.request("GET", "/api/v1/devices/\(token)").json
            #expect(device?["app_id"]?.stringValue == text && device?["properties"]?["city"]?.stringValue == text)
        }
    }

    /// A variant key may start with - (letters, digits, - and _): the report's CSV guards it.
    @Test(.timeLimit(.minutes(3)))
    func theReportCSVGuardsAVariantKeyThatStartsAFormula() async throws {
        let browser = try PagesBrowser(role: .admin)
        let herald = browser.harness.herald
        let created = try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Keys", "notification": ["title": "Hi"], "topics": ["news"],
            "variants": [["key": "-2-3", "weight": 50], ["key": "B", "weight": 50]],
        ])
        let id = try #require(created.json?["id"]?.stringValue, "\(created.json as Any)")
        let api = try await herald.request("GET", "/api/v1/campaigns/\(id)/report?format=csv")
        let accepted = try await herald.request("GET", "/api/v1/campaigns/\(id)/report", headers: ["Accept": "text/csv"])
        let page = browser.get("/campaigns/\(id)/report.csv")
        #expect(api.status == 200 && page.status == 200 && Array(api.data) == page.body && accepted.data == api.data)
        let rows = try Self.records(api.data)
        #expect(rows.contains { $0.prefix(2) == ["total", "'-2-3"] }, "\(rows)")
        #expect(rows.allSatisfy { !$0.contains(where: CSVInjection.runsAsFormula) }, "\(rows)")
    }
}

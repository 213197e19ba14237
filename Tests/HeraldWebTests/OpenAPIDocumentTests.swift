import HeraldTestSupport
import Foundation
import HeraldCore
import HeraldHTTP
import HeraldJSON
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// The OpenAPI document is kept true: every route is documented, every documented operation
/// exists, and real responses match the schemas documented for their status.
@Suite(.serialized) final class OpenAPIDocumentTests {
    let herald: TestHerald
    let document: JSON

    init() throws {
        herald = try TestHerald()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: TestDatabase.repositoryRoot + "/Public/openapi.json"))
        document = try JSON.parse(Array(bytes))
    }

    /// The documented schema for this operation's answer, or nil when the status is undocumented.
    func schema(_ method: String, _ path: String, _ status: Int) -> JSON?? {
        guard let response = document["paths"]?[path]?[method.lowercased()]?["responses"]?[String(status)] else { return nil }
        return .some(response["content"]?.objectValue?.members.first?.value["schema"])
    }

    func check(_ method: String, _ documentedPath: String, _ response: TestHerald.Response,
               sourceLocation: SourceLocation = #_sourceLocation) {
        guard let documented = schema(method, documentedPath, response.status) else {
            Issue.record("\(method) \(documentedPath) answered \(response.status), which the document does not list",
                         sourceLocation: sourceLocation)
            return
        }
        guard let schema = documented else { return }  // documented without a body
        guard let body = response.json else {
            Issue.record("\(method) \(documentedPath) \(response.status) has no JSON body", sourceLocation: sourceLocation)
            return
        }
        let violations = SchemaValidator(document: document).violations(of: body, against: schema)
        #expect(violations.isEmpty, "\(method) \(documentedPath) \(response.status): \(violations)", sourceLocation: sourceLocation)
    }

    @Test func everyAPIRouteIsDocumentedAndEveryDocumentedOperationIsRouted() throws {
        let routed = Set(herald.server.routes.filter { $0.pattern.hasPrefix("/api/") || $0.pattern.hasSuffix("z") }
            .filter { $0.pattern != "/api/v1/openapi.json" }
            .map { "\($0.method.rawValue.lowercased()) \($0.pattern)" })
        var documented = Set<String>()
        for (path, item) in document["paths"]?.objectValue ?? [:] {
            for (method, _) in item.objectValue ?? [:] where method != "parameters" { documented.insert("\(method) \(path)") }
        }
        #expect(routed == documented)
    }

    /// The campaign schemas are the domain's own (`CampaignSpec.jsonSchema`), so the document cannot
    /// drift from the validation. On a mismatch the expected schema is written to
    /// .test-data/CampaignInput.schema.json to copy into Public/openapi.json.
    @Test func campaignSchemasAreTheDomainsOwn() throws {
        let schemas = try #require(document["components"]?["schemas"])
        let expected = CampaignSpec.jsonSchema
        if schemas["CampaignInput"] != expected {
            let path = TestDatabase.repositoryRoot + "/.test-data/CampaignInput.schema.json"
            try? FileManager.default.createDirectory(atPath: TestDatabase.repositoryRoot + "/.test-data", withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path, contents: Data(expected.prettyString().utf8))
            Issue.record("components.schemas.CampaignInput differs from CampaignSpec.jsonSchema; the expected one is in \(path)")
        }
        let input = try #require(expected["properties"]?.objectValue)
        let output = try #require(schemas["Campaign"]?["properties"]?.objectValue)
        for (name, schema) in input {
            #expect(output[name] == schema, "Campaign.\(name) is not documented as CampaignInput.\(name)")
        }
    }

    @Test func realResponsesMatchTheDocument() async throws {
        let collection = "/api/v1/campaigns"
        let item = "/api/v1/campaigns/{id}"
        let full: JSON = [
            "name": "Everything", "notification": ["title": "T", "body": "B", "image": "https://cdn.example.com/a.png"],
            "topics": ["news", "sport"], "data": ["k": "v"],
            "options": ["priority": "high", "expiry_seconds": 3600, "color": "#112233", "web_link": "https://example.com"],
            "variants": [["key": "A", "weight": 50], ["key": "B", "weight": 50, "notification": ["title": "T2", "body": "B2"]]],
        ]
        let created = try await herald.request("POST", collection, json: full)
        check("POST", collection, created)
        let id = try #require(created.json?["id"]?.stringValue)
        check("POST", collection, try await herald.request("POST", collection, json: ["name": ""]))
        check("POST", collection, try await herald.request("POST", collection, body: Array("{".utf8), headers: ["Content-Type": "application/json"]))
        check("POST", collection, try await herald.request("POST", collection, body: Array("x".utf8), headers: ["Content-Type": "text/plain"]))
        check("GET", collection, try await herald.request("GET", collection))
        check("GET", collection, try await herald.request("GET", "\(collection)?limit=1000"))
        check("GET", item, try await herald.request("GET", "\(collection)/\(id)"))
        check("GET", item, try await herald.request("GET", "\(collection)/00000000-0000-0000-0000-000000000000"))
        check("PUT", item, try await herald.request("PUT", "\(collection)/\(id)", json: full))
        check("PUT", item, try await herald.request("PUT", "\(collection)/\(id)", json: full, headers: ["If-Match": "\"9\""]))
        check("PATCH", item, try await herald.request("PATCH", "\(collection)/\(id)", json: ["name": "P"], headers: ["If-Match": "\"1\""]))
        check("GET", collection, try await herald.request("GET", "\(collection)?q=P&status=draft,scheduled"))
        check("GET", collection, try await herald.request("GET", "\(collection)?status=nope&q=%00"))
        check("GET", "\(item)/report", try await herald.request("GET", "\(collection)/\(id)/report"))
        check("GET", "\(item)/report", try await herald.request("GET", "\(collection)/\(id)/report?format=xml"))
        check("POST", "/api/v1/delivery-data/refresh", try await herald.request("POST", "/api/v1/delivery-data/refresh"))
        check("GET", "/api/v1/audit", try await herald.request("GET", "/api/v1/audit?limit=0"))
        let png = ImageInspectorTests.png()
        check("POST", "/api/v1/images", try await herald.request("POST", "/api/v1/images", body: png, headers: ["Content-Type": "image/png"]))
        check("POST", "/api/v1/images", try await herald.request("POST", "/api/v1/images", body: [1, 2, 3], headers: ["Content-Type": "image/png"]))
        check("POST", "/api/v1/images", try await herald.request("POST", "/api/v1/images", body: png, headers: ["Content-Type": "text/plain"]))
        check("DELETE", item, try await herald.request("DELETE", "\(collection)/\(id)", headers: ["If-Match": "\"2\""]))
        let hooks = "/api/v1/webhooks"
        let hook = try await herald.request("POST", hooks, json: ["url": "https://crm.example.com/hook", "events": ["run.finished"]])
        check("POST", hooks, hook)
        check("POST", hooks, try await herald.request("POST", hooks, json: ["url": "ftp://x", "events": []]))
        let hookID = try #require(hook.json?["id"]?.stringValue)
        check("GET", hooks, try await herald.request("GET", hooks))
        check("GET", "\(hooks)/{id}", try await herald.request("GET", "\(hooks)/\(hookID)"))
        check("GET", "\(hooks)/{id}", try await herald.request("GET", "\(hooks)/nope"))
        check("GET", "\(hooks)/{id}/deliveries", try await herald.request("GET", "\(hooks)/\(hookID)/deliveries"))
        check("GET", "\(hooks)/{id}/deliveries", try await herald.request("GET", "\(hooks)/\(hookID)/deliveries?limit=0"))
        check("POST", "\(hooks)/{id}/deliveries/{delivery}/redeliver", try await herald.request("POST", "\(hooks)/\(hookID)/deliveries/1/redeliver"))
        check("DELETE", "\(hooks)/{id}", try await herald.request("DELETE", "\(hooks)/\(hookID)"))
        check("GET", "/healthz", try await herald.request("GET", "/healthz"))
        check("GET", "/readyz", try await herald.request("GET", "/readyz"))

        let served = try await herald.request("GET", "/api/v1/openapi.json")
        #expect(served.status == 200)
        #expect(served.json == document)
    }
}

import Foundation
import HeraldJSON
import HeraldTestSupport
import HeraldHTTP
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// Every route of the table in `Routes` has a decision in this table, and every route answers
/// each kind of caller as the table says. A route added without a line here fails the first test.
@Suite(.serialized) final class AccessRouteTableTests {
    /// Who may use a route.
    enum Decision {
        /// Public on purpose: same answer for everyone, never 401 or a sign-in redirect.
        case open
        /// REST for this role and above (keys or a session with its CSRF header).
        case api(Role)
        /// `POST /api/v1/events`: an events-scope key or editor and above.
        case events
        /// Registering devices: a devices-scope key or editor and above.
        case devices
        /// One-call sends: publisher and above, with a sends-scope or full key.
        case sends
        /// A browser page for this role and above (session cookie only).
        case page(Role)
    }

    static let table: [String: Decision] = [
        "GET /healthz": .open,
        "GET /readyz": .open,
        "GET /metrics": .open,  // counts only; see MetricsAPI and the README
        "GET /static/{path...}": .open,
        "GET /api/v1/openapi.json": .open,
        "GET /sign-in": .open,
        "POST /sign-in": .open,
        "POST /sign-out": .page(.viewer),
        "POST /language": .page(.viewer),

        "GET /api/v1/campaigns": .api(.viewer),
        "GET /api/v1/campaigns/{id}": .api(.viewer),
        "GET /api/v1/campaigns/{id}/preview": .api(.viewer),
        "GET /api/v1/campaigns/{id}/report": .api(.viewer),
        "GET /api/v1/campaigns/{id}/runs": .api(.viewer),
        "GET /api/v1/campaigns/{id}/deliveries": .api(.viewer),
        "POST /api/v1/campaigns": .api(.editor),
        "PUT /api/v1/campaigns/{id}": .api(.editor),
        "PATCH /api/v1/campaigns/{id}": .api(.editor),
        "DELETE /api/v1/campaigns/{id}": .api(.editor),
        "POST /api/v1/campaigns/{id}/validate": .api(.editor),
        "POST /api/v1/campaigns/{id}/test": .api(.editor),
        "POST /api/v1/images": .api(.editor),
        "GET /api/v1/images": .api(.viewer),
        "POST /api/v1/campaigns/{id}/schedule": .api(.publisher),
        "POST /api/v1/campaigns/{id}/cancel": .api(.publisher),
        "POST /api/v1/campaigns/{id}/duplicate": .api(.editor),
        "POST /api/v1/campaigns/{id}/pause": .api(.publisher),
        "POST /api/v1/campaigns/{id}/submit": .api(.editor),
        "POST /api/v1/campaigns/{id}/approve": .api(.publisher),
        "POST /api/v1/campaigns/{id}/reject": .api(.publisher),
        "GET /api/v1/campaigns/{id}/approval": .api(.viewer),
        "GET /api/v1/test-devices": .api(.viewer),
        "PUT /api/v1/test-devices/{token}": .api(.admin),
        "DELETE /api/v1/test-devices/{token}": .api(.admin),
        "POST /api/v1/campaigns/{id}/resume": .api(.publisher),
        "POST /api/v1/campaigns/{id}/send-winner": .api(.publisher),

        "GET /api/v1/me": .api(.viewer),
        "GET /api/v1/users": .api(.admin),
        "POST /api/v1/users": .api(.admin),
        "PATCH /api/v1/users/{id}": .api(.admin),
        "GET /api/v1/api-keys": .api(.admin),
        "POST /api/v1/api-keys": .api(.admin),
        "DELETE /api/v1/api-keys/{id}": .api(.admin),
        "GET /api/v1/audit": .api(.admin),
        "POST /api/v1/delivery-data/refresh": .api(.publisher),
        "POST /api/v1/sends": .sends,
        "GET /api/v1/events": .api(.viewer),
        "GET /api/v1/sends/{id}": .sends,
        "POST /campaigns/{id}/fcm-delivery": .page(.publisher),
        "GET /api/v1/frequency-caps": .api(.viewer),
        "PUT /api/v1/frequency-caps": .api(.admin),
        "GET /api/v1/control-group": .api(.viewer),
        "PUT /api/v1/control-group": .api(.admin),
        "GET /api/v1/control-group/report": .api(.viewer),
        "GET /api/v1/webhooks": .api(.admin),
        "POST /api/v1/webhooks": .api(.admin),
        "GET /api/v1/webhooks/{id}": .api(.admin),
        "DELETE /api/v1/webhooks/{id}": .api(.admin),
        "GET /api/v1/webhooks/{id}/deliveries": .api(.admin),
        "POST /api/v1/webhooks/{id}/deliveries/{delivery}/redeliver": .api(.admin),

        "GET /users": .page(.admin),
        "POST /users": .page(.admin),
        "POST /users/{id}": .page(.admin),
        "GET /api-keys": .page(.admin),
        "POST /api-keys": .page(.admin),
        "POST /api-keys/{id}/revoke": .page(.admin),
        "GET /contact-policy": .page(.viewer),
        "POST /contact-policy/caps": .page(.admin),
        "POST /contact-policy/control-group": .page(.admin),
        "GET /webhooks": .page(.admin),
        "POST /webhooks": .page(.admin),
        "GET /webhooks/{id}": .page(.admin),
        "POST /webhooks/{id}/delete": .page(.admin),
        "POST /webhooks/{id}/deliveries/{delivery}/redeliver": .page(.admin),
        "GET /audit": .page(.admin),

        "GET /": .page(.viewer),
        "GET /campaigns": .page(.viewer),
        "GET /campaigns/new": .page(.editor),
        "POST /campaigns": .page(.editor),
        "POST /composer/budget": .page(.editor),
        "GET /campaigns/{id}/edit": .page(.editor),
        "POST /campaigns/{id}": .page(.editor),
        "GET /campaigns/{id}/review": .page(.viewer),
        "POST /campaigns/{id}/schedule": .page(.publisher),
        "POST /campaigns/{id}/publish": .page(.publisher),
        "POST /campaigns/{id}/cancel": .page(.publisher),
        "POST /campaigns/{id}/pause": .page(.publisher),
        "POST /campaigns/{id}/submit": .page(.editor),
        "POST /campaigns/{id}/approve": .page(.publisher),
        "POST /campaigns/{id}/reject": .page(.publisher),
        "POST /campaigns/{id}/resume": .page(.publisher),
        "POST /campaigns/{id}/send-winner": .page(.publisher),
        "POST /campaigns/{id}/delete": .page(.editor),
        "POST /campaigns/{id}/duplicate": .page(.editor),
        "POST /campaigns/{id}/test": .page(.editor),
        "GET /campaigns/{id}/report": .page(.viewer),
        "GET /campaigns/{id}/report.csv": .page(.viewer),
        "GET /devices": .page(.viewer),
        "GET /devices/{token}/topics": .page(.viewer),
        "POST /devices/import": .page(.editor),
        "GET /segments": .page(.viewer),
        "POST /segments": .page(.editor),
        "POST /segment-editor/reach": .page(.viewer),
        "GET /segments/{id}": .page(.viewer),
        "POST /segments/{id}": .page(.editor),
        "POST /segments/{id}/delete": .page(.editor),
        "GET /images/{file}": .open,
        "POST /api/v1/events": .events,

        "GET /api/v1/devices": .api(.viewer),
        "PUT /api/v1/devices/{token}": .devices,
        "GET /api/v1/devices/{token}": .api(.viewer),
        "DELETE /api/v1/devices/{token}": .devices,
        "POST /api/v1/devices/{token}/move-to-fid": .devices,
        "GET /api/v1/devices/{token}/topics": .api(.viewer),
        "GET /api/v1/device-counts": .api(.viewer),
        "POST /api/v1/device-imports": .devices,
        "GET /api/v1/device-export": .api(.viewer),
        "GET /api/v1/segments": .api(.viewer),
        "POST /api/v1/segments": .api(.editor),
        "GET /api/v1/segments/{id}": .api(.viewer),
        "PUT /api/v1/segments/{id}": .api(.editor),
        "DELETE /api/v1/segments/{id}": .api(.editor),
        "POST /api/v1/segment-reach": .api(.viewer),
        "POST /api/v1/topic-subscriptions": .api(.publisher),
        "GET /api/v1/topic-subscriptions/{id}": .api(.viewer),
        "POST /api/v1/time-zone-topics": .api(.publisher),
        "GET /api/v1/journeys": .api(.viewer),
        "POST /api/v1/journeys": .api(.editor),
        "GET /api/v1/journeys/{id}": .api(.viewer),
        "PUT /api/v1/journeys/{id}": .api(.editor),
        "DELETE /api/v1/journeys/{id}": .api(.editor),
        "POST /api/v1/journeys/{id}/publish": .api(.publisher),
        "POST /api/v1/journeys/{id}/pause": .api(.publisher),
        "POST /api/v1/journeys/{id}/resume": .api(.publisher),
        "POST /api/v1/journeys/{id}/stop": .api(.publisher),
        "GET /api/v1/journeys/{id}/report": .api(.viewer),
        "GET /journeys": .page(.viewer),
        "GET /journeys/new": .page(.editor),
        "POST /journeys": .page(.editor),
        "GET /journeys/{id}": .page(.viewer),
        "POST /journeys/{id}": .page(.editor),
        "POST /journeys/{id}/publish": .page(.publisher),
        "POST /journeys/{id}/pause": .page(.publisher),
        "POST /journeys/{id}/resume": .page(.publisher),
        "POST /journeys/{id}/stop": .page(.publisher),
    ]

    let harness: AccessHarness

    init() throws {
        harness = try AccessHarness()
    }

    static func name(_ route: (method: HTTPMethod, pattern: String, route: Route)) -> String { "\(route.method.rawValue) \(route.pattern)" }

    /// A concrete target for a pattern: parameters become an id that names nothing, or a real static file.
    static func target(_ pattern: String) -> String {
        pattern.replacingOccurrences(of: "{path...}", with: "herald.css")
            .replacingOccurrences(of: "{id}", with: "00000000-0000-4000-8000-000000000000")
            .replacingOccurrences(of: "{token}", with: "no-such-device-token")
    }

    @Test func everyRouteHasADecisionAndEveryDecisionARoute() {
        let routed = Set(harness.routes.map(Self.name))
        let undecided = routed.subtracting(Self.table.keys).sorted()
        let stale = Set(Self.table.keys).subtracting(routed).sorted()
        #expect(undecided.isEmpty, "routes without an access decision in AccessRouteTableTests.table: \(undecided)")
        #expect(stale.isEmpty, "decisions for routes that no longer exist: \(stale)")
    }

    @Test func everyRouteAnswersEachCallerAsTheTableSays() throws {
        var users: [Role: UserRecord] = [:]
        var keys: [Role: String] = [:]
        for role in Role.allCases {
            users[role] = try harness.user(role)
            keys[role] = try harness.key(role)
        }
        let eventsKey = try harness.key(.editor, scope: .events)
        let devicesKey = try harness.key(.editor, scope: .devices)
        let sendsKey = try harness.key(.publisher, scope: .sends)

        for route in harness.routes {
            let name = Self.name(route)
            guard let decision = Self.table[name] else { continue }  // the test above reports it
            let target = Self.target(route.pattern)
            let unsafe = !["GET", "HEAD"].contains(route.method.rawValue)
            let jsonBody: [UInt8] = unsafe ? Array("{}".utf8) : []
            func api(_ extra: [(String, String)]) -> HTTPResponse {
                harness.send(route.method, target, headers: (unsafe ? [("Content-Type", "application/json")] : []) + extra, body: jsonBody)
            }
            func page(session: (id: String, csrf: String)?, csrf: Bool = true) -> HTTPResponse {
                var form: [(String, String)] = []
                if let session, csrf { form.append(("csrf_token", session.csrf)) }
                var headers: [(String, String)] = [("Content-Type", "application/x-www-form-urlencoded")]
                if let session { headers.append(("Cookie", "\(Authentication.sessionCookie)=\(session.id)")) }
                return harness.send(route.method, target, headers: headers, body: unsafe ? Array(AccessHarness.encode(form).utf8) : [])
            }

            switch decision {
            case .open:
                let anonymous = api([])
                #expect(anonymous.status != 401 && !anonymous.sendsToSignIn, "\(name) anonymously: \(anonymous.status)")
                let asAdmin = api([("Authorization", "Bearer \(keys[.admin]!)")])
                #expect(asAdmin.status == anonymous.status, "\(name) answers an admin \(asAdmin.status), anonymous \(anonymous.status)")
                let asEvents = api([("Authorization", "Bearer \(eventsKey)")])
                #expect(asEvents.status == anonymous.status, "\(name) answers an events key \(asEvents.status)")

            case .api, .events, .devices, .sends:
                let minimum: Role = if case .api(let role) = decision { role } else if case .sends = decision { .publisher } else { .editor }
                let anonymous = api([])
                #expect(anonymous.status == 401, "\(name) without credentials: \(anonymous.status)")
                #expect(anonymous.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true, "\(name): no WWW-Authenticate")
                #expect(anonymous.headers["Content-Type"] == "application/problem+json", "\(name): 401 is not problem+json")
                let forged = api([("Authorization", "Bearer hk_not-a-real-key")])
                #expect(forged.status == 401, "\(name) with a made-up key: \(forged.status)")
                for role in Role.allCases {
                    let response = api([("Authorization", "Bearer \(keys[role]!)")])
                    if role >= minimum {
                        #expect(![401, 403].contains(response.status), "\(name) as a \(role) key: \(response.status) \(response.text)")
                    } else {
                        #expect(response.status == 403, "\(name) as a \(role) key: \(response.status)")
                        #expect(response.headers["Content-Type"] == "application/problem+json")
                    }
                }
                let events = api([("Authorization", "Bearer \(eventsKey)")])
                if case .events = decision {
                    #expect(![401, 403].contains(events.status), "\(name) with an events key: \(events.status)")
                } else {
                    #expect(events.status == 403, "\(name) with an events-scope key: \(events.status)")
                }
                let devices = api([("Authorization", "Bearer \(devicesKey)")])
                if case .devices = decision {
                    #expect(![401, 403].contains(devices.status), "\(name) with a devices key: \(devices.status)")
                } else {
                    #expect(devices.status == 403, "\(name) with a devices-scope key: \(devices.status)")
                }
                let sends = api([("Authorization", "Bearer \(sendsKey)")])
                if case .sends = decision {
                    #expect(![401, 403].contains(sends.status), "\(name) with a sends key: \(sends.status)")
                } else {
                    #expect(sends.status == 403, "\(name) with a sends-scope key: \(sends.status)")
                }
                // A browser session works for the API too, but unsafe methods need the CSRF header.
                let session = try harness.session(users[.admin]!)
                let cookie = ("Cookie", "\(Authentication.sessionCookie)=\(session.id)")
                let withoutHeader = api([cookie])
                if unsafe {
                    #expect(withoutHeader.status == 403, "\(name) with a session but no X-CSRF-Token: \(withoutHeader.status)")
                    let withHeader = api([cookie, (Authentication.csrfHeader, session.csrf)])
                    #expect(![401, 403].contains(withHeader.status), "\(name) with a session and its CSRF token: \(withHeader.status)")
                } else {
                    #expect(![401, 403].contains(withoutHeader.status), "\(name) with an admin session: \(withoutHeader.status)")
                }

            case .page(let minimum):
                let anonymous = page(session: nil)
                #expect(anonymous.sendsToSignIn, "\(name) without a session: \(anonymous.status) \(anonymous.headers["Location"] ?? "")")
                let withKey = api([("Authorization", "Bearer \(keys[.admin]!)")])
                #expect(withKey.sendsToSignIn, "\(name) with an API key (pages need a session): \(withKey.status)")
                for role in Role.allCases {
                    // A fresh session each time: sign-out ends the one it is given.
                    let response = page(session: try harness.session(users[role]!))
                    if role >= minimum {
                        #expect(![401, 403].contains(response.status) && !response.sendsToSignIn,
                                "\(name) as \(role): \(response.status)")
                    } else {
                        #expect(response.status == 403, "\(name) as \(role): \(response.status)")
                        #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true)
                    }
                }
                if unsafe {
                    let noToken = page(session: try harness.session(users[.admin]!), csrf: false)
                    #expect(noToken.status == 403, "\(name) without its CSRF token: \(noToken.status)")
                }
            }
        }
    }

    /// The OpenAPI document says the same: closed operations list 401 and 403, open ones need no security.
    @Test func theOpenAPIDocumentStatesTheSameDecisions() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: TestDatabase.repositoryRoot + "/Public/openapi.json"))
        let document = try JSON.parse(Array(bytes))
        #expect(document["components"]?["securitySchemes"]?["apiKey"]?["scheme"] == "bearer")
        for (name, decision) in Self.table {
            let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
            guard let operation = document["paths"]?[parts[1]]?[parts[0].lowercased()] else { continue }  // pages and /metrics
            switch decision {
            case .open:
                #expect(operation["security"] == .array([]), "\(name) is open but the document asks for credentials")
            case .api, .events, .devices, .sends:
                #expect(operation["responses"]?["401"] != nil, "\(name): 401 undocumented")
                #expect(operation["responses"]?["403"] != nil, "\(name): 403 undocumented")
            case .page:
                Issue.record("\(name) is a page but documented as an API operation")
            }
        }
    }
}

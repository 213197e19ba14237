import Testing
@testable import HeraldHTTP

private func request(_ method: HTTPMethod, _ target: String) -> HTTPRequest {
    HTTPRequest(method: method, target: target, headers: ["Host": "t"])
}

private func describe(_ name: String) -> HTTPHandler {
    { request in
        let parameters = request.parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        return HTTPResponse(status: 200, text: "\(name) \(parameters)")
    }
}

@Suite struct RouterTests {
    var router: Router = {
        var router = Router()
        router.add(.get, "/api/v1/campaigns", describe("list"))
        router.add(.post, "/api/v1/campaigns", describe("create"))
        router.add(.get, "/api/v1/campaigns/{id}", describe("read"))
        router.add(.get, "/api/v1/campaigns/new", describe("new-form"))
        router.add(.delete, "/api/v1/campaigns/{id}", describe("delete"))
        router.add(.get, "/api/v1/campaigns/{id}/preview", describe("preview"))
        router.add(.get, "/static/{path...}", describe("static"))
        return router
    }()

    private func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func matchesLiteralsAndFillsParameters() {
        #expect(text(router.handle(request(.get, "/api/v1/campaigns"))) == "list ")
        #expect(text(router.handle(request(.post, "/api/v1/campaigns"))) == "create ")
        #expect(text(router.handle(request(.get, "/api/v1/campaigns/42/preview?x=1"))) == "preview id=42")
        #expect(text(router.handle(request(.delete, "/api/v1/campaigns/a%20b"))) == "delete id=a b")
    }

    @Test func literalSegmentWinsOverParameterWhateverTheOrder() {
        #expect(text(router.handle(request(.get, "/api/v1/campaigns/new"))) == "new-form ")
        #expect(text(router.handle(request(.get, "/api/v1/campaigns/7"))) == "read id=7")
    }

    @Test func wildcardTakesTheRestOfThePath() {
        #expect(text(router.handle(request(.get, "/static/css/site.css"))) == "static path=css/site.css")
        #expect(text(router.handle(request(.get, "/static/"))) == "static path=")
    }

    @Test func unknownPathIs404() {
        #expect(router.handle(request(.get, "/nope")).status == 404)
        #expect(router.handle(request(.get, "/api/v1/campaigns/1/preview/extra")).status == 404)
        #expect(router.handle(request(.get, "/api/v1/campaigns/")).status == 404, "an empty segment is no {id}")
    }

    @Test func otherMethodIs405WithAllow() {
        let response = router.handle(request(.put, "/api/v1/campaigns/9"))
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, DELETE, HEAD")
        #expect(router.handle(request(.patch, "/api/v1/campaigns")).headers["Allow"] == "GET, POST, HEAD")
    }

    @Test func headIsServedByGetWithoutBodyButWithLength() {
        let get = router.handle(request(.get, "/api/v1/campaigns/5"))
        let head = router.handle(request(.head, "/api/v1/campaigns/5"))
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.headers["Content-Length"] == String(get.body.count))
    }

    @Test func customFallbacksCanAnswerProblemJSON() {
        var router = self.router
        router.notFound = { _ in HTTPResponse(status: 404, headers: ["Content-Type": "application/problem+json"], body: []) }
        router.methodNotAllowed = { _, methods in HTTPResponse(status: 405, text: methods.map(\.rawValue).joined(separator: "|")) }
        #expect(router.handle(request(.get, "/x")).headers["Content-Type"] == "application/problem+json")
        let refused = router.handle(request(.post, "/static/a"))
        #expect(text(refused) == "GET|HEAD" && refused.headers["Allow"] == "GET, HEAD")
    }

    @Test func listsEveryRoute() {
        #expect(router.routes.count == 7)
        #expect(router.routes.contains { $0.method == .delete && $0.pattern == "/api/v1/campaigns/{id}" })
    }
}

/// The trie against the plain rule it replaces: every route whose pattern matches is tried in the
/// order added, the most specific for the method wins (the first of equals), HEAD falls back to
/// GET, and a 405 lists the matching routes' methods in the order added, HEAD beside GET.
@Suite struct RouteTableTests {
    private static func table(_ routes: [(HTTPMethod, String)]) -> RouteTable<Int> {
        var table = RouteTable<Int>()
        for (index, route) in routes.enumerated() { table.add(route.0, route.1, index) }
        return table
    }

    private enum Outcome: Equatable {
        case found(Int, [String: String], headForGet: Bool)
        case methodNotAllowed([HTTPMethod])
        case notFound
    }

    private static func outcome(_ match: RouteTable<Int>.Match) -> Outcome {
        switch match {
        case .found(let value, let parameters, _, let headForGet): .found(value, parameters, headForGet: headForGet)
        case .methodNotAllowed(let methods): .methodNotAllowed(methods)
        case .notFound: .notFound
        }
    }

    /// The linear scan, written from the rule above.
    private static func scan(_ routes: [(HTTPMethod, String)], _ method: HTTPMethod, _ path: String) -> Outcome {
        let patterns = routes.map { RoutePattern($0.1) }
        let matches: [(index: Int, parameters: [String: String])] = PathSegments.with(path) { segments in
            patterns.indices.compactMap { index in patterns[index].match(segments).map { (index, $0) } }
        }
        func best(_ wanted: HTTPMethod) -> (index: Int, parameters: [String: String])? {
            var best: (index: Int, parameters: [String: String])?
            for match in matches where routes[match.index].0 == wanted {
                let specificity = patterns[match.index].specificity
                if let current = best {
                    let other = patterns[current.index].specificity
                    guard specificity != other, other.lexicographicallyPrecedes(specificity) else { continue }
                }
                best = match
            }
            return best
        }
        if let found = best(method) { return .found(found.index, found.parameters, headForGet: false) }
        if method == .head, let found = best(.get) { return .found(found.index, found.parameters, headForGet: true) }
        if matches.isEmpty { return .notFound }
        var allowed: [HTTPMethod] = []
        for match in matches where !allowed.contains(routes[match.index].0) { allowed.append(routes[match.index].0) }
        if allowed.contains(.get) && !allowed.contains(.head) { allowed.append(.head) }
        return .methodNotAllowed(allowed)
    }

    static let routes: [(HTTPMethod, String)] = [
        (.get, "/"), (.get, "/healthz"), (.get, "/static/{path...}"), (.get, "/{anything...}"),
        (.post, "/campaigns"), (.get, "/campaigns"), (.get, "/campaigns/{id}"), (.get, "/campaigns/new"),
        (.post, "/campaigns/{id}"), (.get, "/campaigns/{key}"), (.delete, "/campaigns/{id}/runs/{run}"),
        (.get, "/campaigns/{id}/runs/{run}"), (.get, "/campaigns/new/runs/{run}"), (.get, "/campaigns/{id}/{rest...}"),
        (.put, "/a/{x}/c"), (.put, "/a/b/{y}"), (.patch, "/a/{x...}"), (.get, "/a"), (.head, "/h/{x}"), (.get, "/h/{x}"),
        (.options, "/a/b/c"), (.get, "/x/{p}/y"), (.get, "/x/{p}"),
    ]

    @Test func agreesWithAScanOfEveryRoute() {
        let table = Self.table(Self.routes)
        // Segments that the patterns care about at each depth, and some they do not.
        let segments = [["", "a", "campaigns", "static", "h", "x", "zz"], ["", "b", "new", "7", "%41%2F", "y"],
                        ["", "c", "runs", "y"], ["", "1", "a+b"]]
        let methods: [HTTPMethod] = [.get, .head, .post, .put, .delete, "PROPFIND"]
        var paths = ["/"]
        var frontier = [""]
        for depth in segments {
            frontier = frontier.flatMap { prefix in depth.map { prefix + "/" + $0 } }
            paths += frontier
        }
        var checked = 0
        for path in paths {
            for method in methods {
                let expected = Self.scan(Self.routes, method, path)
                let actual = Self.outcome(table.match(method, path: path))
                #expect(actual == expected, "\(method) \(path)")
                // Found once on the loop and noted on the request, found again by its handler.
                var request = HTTPRequest(method: method, target: path)
                let noted = Self.outcome(table.match(noting: &request))
                let again = Self.outcome(table.match(request))
                #expect(noted == expected && again == expected, "noted: \(method) \(path)")
                checked += 1
                if actual != expected || again != expected { return }
            }
        }
        #expect(checked > 4000)
    }

    @Test func literalBeatsParameterBeatsWildcardWhateverTheOrderAdded() {
        let table = Self.table([(.get, "/c/{id...}"), (.get, "/c/{id}"), (.get, "/c/new")])
        #expect(Self.outcome(table.match(.get, path: "/c/new")) == .found(2, [:], headForGet: false))
        #expect(Self.outcome(table.match(.get, path: "/c/7")) == .found(1, ["id": "7"], headForGet: false))
        #expect(Self.outcome(table.match(.get, path: "/c/7/8")) == .found(0, ["id": "7/8"], headForGet: false))
        // The first segment decides before the second: /c/{x}/d beats /{y}/d/e's shape at "c".
        let deeper = Self.table([(.get, "/{y}/new"), (.get, "/c/{x}")])
        #expect(Self.outcome(deeper.match(.get, path: "/c/new")) == .found(1, ["x": "new"], headForGet: false))
    }

    @Test func ofTwoIdenticalPatternsTheFirstAddedWins() {
        let table = Self.table([(.get, "/c/{id}"), (.get, "/c/{key}")])
        #expect(Self.outcome(table.match(.get, path: "/c/9")) == .found(0, ["id": "9"], headForGet: false))
    }

    @Test func parametersArePercentDecodedAndNeverEmpty() {
        let table = Self.table([(.get, "/c/{id}/runs/{run}"), (.get, "/files/{path...}")])
        #expect(Self.outcome(table.match(.get, path: "/c/a%20b/runs/%2F")) == .found(0, ["id": "a b", "run": "/"], headForGet: false))
        #expect(Self.outcome(table.match(.get, path: "/c//runs/1")) == .notFound)
        #expect(Self.outcome(table.match(.get, path: "/files/a/%2e%2e/b")) == .found(1, ["path": "a/../b"], headForGet: false))
        #expect(Self.outcome(table.match(.get, path: "/files")) == .found(1, ["path": ""], headForGet: false))
    }

    @Test func headFindsGetAndAnExplicitHeadRouteFirst() {
        let table = Self.table([(.get, "/r/{id}"), (.head, "/r/special")])
        #expect(Self.outcome(table.match(.head, path: "/r/1")) == .found(0, ["id": "1"], headForGet: true))
        #expect(Self.outcome(table.match(.head, path: "/r/special")) == .found(1, [:], headForGet: false))
    }

    @Test func methodNotAllowedListsMethodsInTheOrderAdded() {
        let table = Self.table([(.delete, "/r/{id}"), (.get, "/r/{id...}"), (.post, "/r/new"), (.get, "/r/{id}")])
        #expect(Self.outcome(table.match(.put, path: "/r/new")) == .methodNotAllowed([.delete, .get, .post, .head]))
        #expect(Self.outcome(table.match(.put, path: "/elsewhere")) == .notFound)
    }
}

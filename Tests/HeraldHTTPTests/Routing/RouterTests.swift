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

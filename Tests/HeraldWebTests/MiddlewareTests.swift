import HeraldCore
import HeraldHTTP
import HeraldPostgres
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// Each link of the request chain run alone, with a `next` that records what it was handed, and
/// the chain's order: the links in turn, the handler last, a link that answers stops the rest.
@Suite struct MiddlewareTests {
    static func context(_ target: String = "/", method: HTTPMethod = .get, headers: [(String, String)] = [], body: String = "",
                        peer: String = "198.51.100.9:5000") -> RequestContext {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name, value) }
        let request = HTTPRequest(method: method, target: target, headers: fields, body: Array(body.utf8), remoteAddress: peer)
        return RequestContext(request: request, requestID: "r1", clientAddress: peer, host: "",
                              log: RequestLog(log: Log(minimum: .error), requestID: "r1", method: method.rawValue, path: request.path))
    }

    static func route(_ face: Face, access: Access = .open, answer: String = "handler") -> Route {
        Route(access: access, face: face) { _ in HTTPResponse(status: 200, text: answer) }
    }

    /// Runs `link` alone; returns its answer and the context `next` saw (nil when it was not called).
    static func run(_ link: some Middleware, _ context: RequestContext, _ route: Route,
                    next: @escaping (RequestContext) throws -> HTTPResponse = { _ in HTTPResponse(status: 204) })
        throws -> (HTTPResponse, RequestContext?) {
        var context = context
        var seen: RequestContext?
        let response = try link.handle(&context, route) { context in
            seen = context
            return try next(context)
        }
        return (response, seen)
    }

    @Test func proxyTrustSetsTheClientTheHostAndTheOriginForTheLinksAfterIt() throws {
        let link = ProxyTrust(trustForwardedHeaders: true)
        let (_, seen) = try Self.run(link, Self.context(headers: [("Host", "10.0.0.5"), ("X-Forwarded-For", "203.0.113.7"),
                                                                 ("X-Forwarded-Host", "herald.example.com"), ("X-Forwarded-Proto", "https")]),
                                     Self.route(.api))
        #expect(seen?.clientAddress == "203.0.113.7")
        #expect(seen?.host == "herald.example.com")
        #expect(seen?.origin == "https://herald.example.com")
    }

    @Test func theAnswersLanguageComesFromAcceptLanguageThenOnPagesFromTheViewersChoice() throws {
        let fa = Self.context("/campaigns?lang=vi", headers: [("Accept-Language", "fa-IR, en;q=0.5")])
        let (_, negotiated) = try Self.run(AnswerLanguage.Negotiated(), fa, Self.route(.page)) { context in
            #expect(context.words.language == .fa)  // the links after it read their texts in it
            return HTTPResponse(status: 204)
        }
        #expect(negotiated?.language == .fa)
        // A page takes `?lang=` (no viewer yet); the API keeps Accept-Language.
        let (_, page) = try Self.run(AnswerLanguage.Chosen(), try #require(negotiated), Self.route(.page)) { context in
            #expect(context.words.language == .vi)
            return HTTPResponse(status: 204)
        }
        #expect(page?.language == .vi)
        let (_, api) = try Self.run(AnswerLanguage.Chosen(), try #require(negotiated), Self.route(.api))
        #expect(api?.language == .fa)
    }

    @Test func whatTheLinksAfterItThrowIsAnsweredByTheRoutesFace() throws {
        let missing: (RequestContext) throws -> HTTPResponse = { _ in throw AppError.notFound(.segment) }
        let (api, _) = try Self.run(ErrorRendering(pages: PageRenderer()), Self.context(), Self.route(.api), next: missing)
        #expect(api.status == 404)
        #expect(api.headers["Content-Type"] == "application/problem+json")
        let (page, _) = try Self.run(ErrorRendering(pages: PageRenderer()), Self.context(), Self.route(.page), next: missing)
        #expect(page.status == 404)
        #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
    }

    @Test func aPostedFormIsParsedOnceForTheLinksAfterIt() throws {
        let form = [("Content-Type", "application/x-www-form-urlencoded")]
        let (_, seen) = try Self.run(BodyParsing(), Self.context(method: .post, headers: form, body: "name=Spring&csrf_token=t"), Self.route(.page))
        #expect(seen?.form.value("name") == "Spring" && seen?.form.value("csrf_token") == "t")
        let (_, refused) = try Self.run(BodyParsing(), Self.context(method: .post, headers: form, body: "name=a%00b"), Self.route(.page))
        #expect(refused?.formError != nil && refused?.form.value("name") == nil)
    }

    @Test func authenticationLetsAnOpenRouteThroughAndSendsAPageVisitorToSignIn() throws {
        // No request here carries a credential, so the database is never asked.
        let pool = PostgresPool(url: "postgresql://herald@127.0.0.1:9/none", maxConnections: 1, acquireTimeout: .seconds(1))
        let authenticator = Authenticator(database: Database(pool: pool), sessions: SessionStore(idleSeconds: 60, lifetimeSeconds: 600), cache: nil)
        let link = Authentication(authenticator: authenticator, sessionCookieName: Authentication.sessionCookie)
        let (_, open) = try Self.run(link, Self.context(), Self.route(.api, access: .open))
        #expect(open != nil)
        let (redirect, page) = try Self.run(link, Self.context("/campaigns/new"), Self.route(.page, access: .page(.viewer)))
        #expect(page == nil)
        #expect(redirect.status == 303 && redirect.headers["Location"] == "/sign-in?next=/campaigns/new")
    }

    /// A link that notes its name on the way in and out, or answers instead of the rest.
    struct Recording: Middleware {
        let name: String
        var answers = false
        let trail: Trail

        func handle(_ context: inout RequestContext, _ route: Route,
                    next: (inout RequestContext) throws -> HTTPResponse) throws -> HTTPResponse {
            trail.add("\(name)>")
            if answers { return HTTPResponse(status: 403) }
            defer { trail.add("<\(name)") }
            return try next(&context)
        }
    }

    final class Trail: @unchecked Sendable {
        private(set) var steps: [String] = []
        func add(_ step: String) { steps.append(step) }
    }

    @Test func theChainRunsItsLinksInOrderAndTheHandlerLast() {
        let trail = Trail()
        let route = Route(access: .open, face: .api) { _ in
            trail.add("handler")
            return HTTPResponse(status: 200)
        }
        var context = Self.context()
        let chain = MiddlewareChain(links: [Recording(name: "a", trail: trail), Recording(name: "b", trail: trail)])
        #expect(chain.run(&context, route).status == 200)
        #expect(trail.steps == ["a>", "b>", "handler", "<b", "<a"])

        let stopped = Trail()
        let refusing = MiddlewareChain(links: [Recording(name: "a", trail: stopped), Recording(name: "b", answers: true, trail: stopped),
                                               Recording(name: "c", trail: stopped)])
        #expect(refusing.run(&context, route).status == 403)
        #expect(stopped.steps == ["a>", "b>", "<a"])
    }
}

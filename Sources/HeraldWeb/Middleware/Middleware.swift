import HeraldHTTP

/// One link of the chain a matched request goes through (`MiddlewareChain`): it may change the
/// context, answer instead of the links after it, or change their answer. Each link is a value
/// that can be run alone, with a `next` that stands for the rest of the chain.
protocol Middleware: Sendable {
    func handle(_ context: inout RequestContext, _ route: Route,
                next: (inout RequestContext) throws -> HTTPResponse) throws -> HTTPResponse
}

/// The links of a matched request, outermost first, then its route's handler. What comes before
/// it is in `WebApplication.answer`: observation gives the request its id, metrics and access
/// line, and the route table matched it once.
struct MiddlewareChain: Sendable {
    let links: [any Middleware]

    func run(_ context: inout RequestContext, _ route: Route) -> HTTPResponse {
        func step(_ index: Int, _ context: inout RequestContext) throws -> HTTPResponse {
            guard index < links.count else { return try route.handler(context) }
            return try links[index].handle(&context, route) { try step(index + 1, &$0) }
        }
        do {
            return try step(0, &context)
        } catch {
            // The chain renders what its handlers throw (`ErrorRendering`); this is the last resort.
            return ProblemRenderer.response(for: error, log: context.log, words: context.words)
        }
    }
}

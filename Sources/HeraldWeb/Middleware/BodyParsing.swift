import HeraldHTTP

/// Parses a posted form once, before authentication, so the CSRF check and the handler read the
/// same fields (the last value of a repeated name, for both).
struct BodyParsing {
    static func parse(_ context: inout RequestContext) {
        // A request without a Content-Type holds no form: known without handing PostedForm a
        // copy of the whole request (its copy and release were 550-800 instructions of a GET).
        guard context.request.headers.contains("Content-Type") else { return }
        let words = context.words
        if let stream = context.request.bodyStream {
            // A form over the server's body limit on a page that takes uploads: read whole here.
            guard PostedForm.isForm(context.request) else { return }
            do {
                var body: [UInt8] = []
                body.reserveCapacity(min(context.request.headers["Content-Length"].flatMap { Int($0) } ?? 0, PostedForm.maximumUploadFormBytes))
                while let part = try stream.next() { body += part }
                context.request.body = body
            } catch let error as RequestBodyError where error.reason == .tooLarge {
                context.formTooLarge = true
                return
            } catch {
                context.formError = "\(error)"
                return
            }
        }
        do {
            guard let form = try PostedForm(context.request) else { return }
            // PostgreSQL refuses U+0000 in text; a form that holds one is refused whole, here.
            if form.fields.contains(where: { $0.name.utf8.contains(0) || $0.value.utf8.contains(0) }) {
                context.formError = words.text("form.nul_character")
                return
            }
            context.form = form
        } catch {
            context.formError = "\(error)"
        }
    }
}

extension BodyParsing: Middleware {
    func handle(_ context: inout RequestContext, _ route: Route,
                next: (inout RequestContext) throws -> HTTPResponse) throws -> HTTPResponse {
        Self.parse(&context)
        return try next(&context)
    }
}

/// Parses a posted form once, before authentication, so the CSRF check and the handler read the
/// same fields (the last value of a repeated name, for both).
enum BodyParsing {
    static func parse(_ context: inout RequestContext) {
        do {
            if let form = try PostedForm(context.request) { context.form = form }
        } catch {
            context.formError = "\(error)"
        }
    }
}

import HeraldCore
import HeraldHTTP

/// A form over its page's upload limit (`PostedForm.maximumUploadFormBytes`), refused before any
/// handler runs, once the viewer's language is known: the page face answers an HTML page in that
/// language saying the upload is too large (413), not the server's bare problem+json.
struct FormRefusal: Middleware {
    func handle(_ context: inout RequestContext, _ route: Route,
                next: (inout RequestContext) throws -> HTTPResponse) throws -> HTTPResponse {
        guard context.formTooLarge else { return try next(&context) }
        let words = context.words
        throw Problem(status: 413, code: "form_too_large", title: words.text("error.page.form_too_large_heading"),
                      detail: words.text("error.page.form_too_large_text", words.fileSize(PostedForm.maximumUploadFormBytes),
                                         words.fileSize(ImageInspector.maximumBytes)))
    }
}

/// A page with one sentence: an error, or a form that could not be read.
struct MessageView: PageView {
    static let template = "message"
    let chrome: PageChrome
    let heading: String
    let text: String

    init(_ context: RequestContext, heading: String, text: String) {
        chrome = PageChrome(context, title: heading)
        self.heading = heading
        self.text = text
    }
}

/// The 403 page for a signed-in viewer whose role does not allow the page.
struct AccessDeniedView: PageView {
    static let template = "access-denied"
    let chrome: PageChrome
    let heading: String
    let message: String

    init(_ context: RequestContext, message: String) {
        let words = context.words
        heading = words.text("access.denied")
        chrome = PageChrome(context, title: heading)
        self.message = message
    }
}

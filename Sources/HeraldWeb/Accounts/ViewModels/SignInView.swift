/// The sign-in form. Its CSRF token is the double-submit token of the form's cookie, not a
/// session's: nobody is signed in yet, so the chrome shows no viewer.
struct SignInView: PageView {
    static let template = "sign-in"
    let chrome: PageChrome
    let next: String
    let email: String
    let csrfToken: String
    let error: String?

    init(next: String, email: String, csrfToken: String, error: String?, words: Localized) {
        // The language switcher of a visitor brings them back here, still bound for `next`.
        chrome = PageChrome(title: words.text("signin.submit"), words: words, next: next)
        self.next = next
        self.email = email
        self.csrfToken = csrfToken
        self.error = error
    }
}

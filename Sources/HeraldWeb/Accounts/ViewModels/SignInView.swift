/// The sign-in form. Its CSRF token is the double-submit token of the form's cookie, not a
/// session's: nobody is signed in yet, so the chrome shows no viewer.
struct SignInView: PageView {
    static let template = "sign-in"
    let chrome = PageChrome(title: Localized.text("signin.submit"))
    let next: String
    let email: String
    let csrfToken: String
    let error: String?
}

@testable import HeraldWeb

/// The texts in English, for the tests that read a page's or a form's words without a request
/// (a request's own come from its context).
let words = Localized(language: .en)

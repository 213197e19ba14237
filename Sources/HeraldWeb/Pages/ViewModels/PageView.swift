/// What `PageRenderer.page` renders: a typed value whose stored properties are the template's
/// keys (swift-mustache reads them through `Mirror`), so a page cannot hand its template a key
/// the compiler has not seen. Every page carries the chrome the layout reads.
protocol PageView: Sendable {
    /// The template in `Pages/Templates` (registered in `PageRenderer.templates`).
    static var template: String { get }
    var chrome: PageChrome { get }
}

import Mustache

/// What a template reads as `{{t.campaigns.title}}`: the text of the key "campaigns.title" in the
/// page's language. Each name step extends the key, and the value renders as the table's text
/// (escaped like any `{{ }}`), or as the missing-key marker the page tests look for.
struct TemplateTexts: MustacheParent, MustacheCustomRenderable, Sendable {
    let tables: StringTables
    let language: Language
    let key: String

    func child(named name: String) -> Any? {
        TemplateTexts(tables: tables, language: language, key: key.isEmpty ? name : "\(key).\(name)")
    }

    var renderText: String { tables.text(key, in: language) }
    var isNull: Bool { false }
}

/// A page's view with the texts beside it: `t` is the string table, every other name is the
/// view's stored property (as swift-mustache would read it through `Mirror`).
struct LocalizedPage: MustacheParent {
    let view: Any
    let texts: TemplateTexts

    func child(named name: String) -> Any? {
        if name == "t" { return texts }
        guard let value = Mirror(reflecting: view).children.first(where: { $0.label == name })?.value else { return nil }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first?.value
    }
}

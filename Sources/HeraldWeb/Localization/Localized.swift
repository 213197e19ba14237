import Foundation
import HeraldCore
import HeraldSync

/// The texts and figures of the request being answered, in its language: the request context's
/// `words` (its `language`, set by the middleware: the user's setting on pages, `Accept-Language`
/// for the API). A page, a view model or an error renderer is handed it, as it is handed the rest
/// of the request; nothing reads the language from ambient state.
struct Localized: Sendable {
    let language: Language

    static var tables: StringTables { .shipped }

    /// The text of `key`; `%@` and `%1$@`… take `arguments`, already formatted.
    func text(_ key: String, _ arguments: String...) -> String {
        format(Self.tables.text(key, in: language), arguments)
    }

    /// The form of `key` for `count` by the language's plural rules (`key.one`, `key.two`,
    /// `key.other`); `%@` is the count in the language's digits, further `%2$@`… are `arguments`.
    func plural(_ key: String, count: Int, _ arguments: String...) -> String {
        let category = PluralRules.category(of: count, in: language)
        let table = Self.tables.tables[language] ?? [:]
        let form = table["\(key).\(category.rawValue)"] ?? table["\(key).other"] ?? StringTables.missing(key)
        return format(form, [number(count)] + arguments)
    }

    /// What a person typed, set in a sentence of another direction: a Unicode isolate (FSI … PDI)
    /// keeps "bad topic!" whole and in its own order inside a Persian or Hebrew sentence (English,
    /// all left to right, stays byte for byte as it was).
    func isolate(_ typed: String) -> String { language == .en ? typed : "\u{2068}\(typed)\u{2069}" }

    /// An integer in the language's digits and grouping ("۱٬۲۳۴" in Persian).
    func number(_ value: Int) -> String {
        language == .en ? String(value) : Self.formatters.number(value, language)
    }

    /// A number with at most `digits` decimals.
    func decimal(_ value: Double, digits: Int) -> String {
        Self.formatters.decimal(value, digits: digits, language)
    }

    /// A whole percentage ("10%", "۱۰٪").
    func percent(whole: Int) -> String {
        language == .en ? "\(whole)%" : Self.formatters.percent(Double(whole) / 100, digits: 0, language)
    }

    /// A fraction as a percentage with `digits` decimals ("12.5%", "۱۲٫۵٪").
    func percent(_ fraction: Double, digits: Int) -> String {
        Self.formatters.percent(fraction, digits: digits, language)
    }

    static let formatters = NumberFormatters()

    /// A file's size as a person reads it: whole kilobytes under a megabyte ("450 KB"), else
    /// megabytes to a tenth ("4.2 MB"), of 1024 bytes each as the 300 KB image limit counts them.
    /// `Public/composer.js` says sizes the same way, before the upload.
    func fileSize(_ bytes: Int) -> String {
        let kilobytes = (bytes + 512) / 1024
        if kilobytes < 1024 { return text("size.kilobytes", number(kilobytes)) }
        let tenths = (bytes * 10 + (1 << 19)) / (1 << 20)
        return text("size.megabytes", tenths % 10 == 0 ? number(tenths / 10) : decimal(Double(tenths) / 10, digits: 1))
    }

    /// A validation error in the page's language, chosen by its machine code and limit (the English
    /// message is the contract's and is kept as it is; the others are the same rule in other words,
    /// without the echoed input).
    func fieldError(_ error: FieldError) -> String {
        guard language != .en else { return error.message }
        let table = Self.tables.tables[language] ?? [:]
        if let limit = error.limit, let form = table["fielderror.\(error.code).limit"] {
            return format(form, [number(limit)])
        }
        return table["fielderror.\(error.code)"] ?? text("fielderror.generic")
    }

    /// An error's title by its machine code (`problem.<code>.title`); the English one otherwise.
    func problemTitle(code: String, _ english: String) -> String {
        guard language != .en else { return english }
        return Self.tables.tables[language]?["problem.\(code).title"] ?? english
    }

    /// An error's detail by its machine code (`problem.<code>.detail`, which may take `arguments`);
    /// the English one where a detail names things only the code that threw knows.
    func problemDetail(code: String, _ english: String, _ arguments: String...) -> String {
        guard language != .en, let form = Self.tables.tables[language]?["problem.\(code).detail"] else { return english }
        return format(form, arguments)
    }

    /// Several validation errors as one sentence ("…; …").
    func fieldErrors(_ errors: [FieldError]) -> String {
        errors.map(fieldError).joined(separator: text("list.semicolon"))
    }

    func format(_ form: String, _ arguments: [String]) -> String {
        arguments.isEmpty ? form : String(format: form, locale: language.locale, arguments: arguments.map { $0 as CVarArg })
    }
}

/// CLDR's plural categories for Herald's languages, for whole counts.
enum PluralRules {
    enum Category: String, CaseIterable, Sendable { case one, two, other }

    static func category(of count: Int, in language: Language) -> Category {
        switch language {
        case .en: count == 1 ? .one : .other
        // Persian and Hindi: "i = 0 or n = 1".
        case .fa, .hi: count == 0 || count == 1 ? .one : .other
        // Hebrew: one, two (a dual), other.
        case .he: count == 1 ? .one : count == 2 ? .two : .other
        // Vietnamese has no plural forms.
        case .vi: .other
        }
    }

    /// The forms a language's table must have for each plural key.
    static func categories(of language: Language) -> [Category] {
        switch language {
        case .en, .fa, .hi: [.one, .other]
        case .he: [.one, .two, .other]
        case .vi: [.other]
        }
    }
}

/// Foundation's number formatters, one per language, made once (a formatter is costly to make and
/// not to be shared across threads while being configured, so each is only read after `init`).
final class NumberFormatters: Sendable {
    let integers: [Language: Locked<NumberFormatter>]

    init() {
        var integers: [Language: Locked<NumberFormatter>] = [:]
        for language in Language.allCases {
            let formatter = NumberFormatter()
            formatter.locale = language.locale
            formatter.numberStyle = .decimal
            integers[language] = Locked(formatter)
        }
        self.integers = integers
    }

    func number(_ value: Int, _ language: Language) -> String {
        integers[language]!.withLock { $0.string(from: NSNumber(value: value)) ?? String(value) }
    }

    func percent(_ fraction: Double, digits: Int, _ language: Language) -> String {
        integers[language]!.withLock { formatter in
            formatter.numberStyle = .percent
            formatter.minimumFractionDigits = digits
            formatter.maximumFractionDigits = digits
            defer { formatter.numberStyle = .decimal; formatter.minimumFractionDigits = 0; formatter.maximumFractionDigits = 0 }
            return formatter.string(from: NSNumber(value: fraction)) ?? "\(fraction * 100)%"
        }
    }

    func decimal(_ value: Double, digits: Int, _ language: Language) -> String {
        integers[language]!.withLock { formatter in
            formatter.minimumFractionDigits = digits
            formatter.maximumFractionDigits = digits
            defer { formatter.minimumFractionDigits = 0; formatter.maximumFractionDigits = 0 }
            return formatter.string(from: NSNumber(value: value)) ?? String(value)
        }
    }
}

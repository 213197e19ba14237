import Foundation

/// The pages' texts: one `Localizable.strings` table per language, in the `<language>.lproj`
/// folders of this module's resource bundle (SwiftPM's localized resources), read once through
/// Foundation. A new text is one key in each table; the key-coverage test names any that is missing.
struct StringTables: Sendable {
    let tables: [Language: [String: String]]

    /// The tables shipped with Herald.
    static let shipped = StringTables(bundle: .module)

    init(bundle: Bundle) {
        var tables: [Language: [String: String]] = [:]
        for language in Language.allCases {
            // On Linux a bundle does not pick a localization by itself: each .lproj is opened by name.
            guard let folder = bundle.path(forResource: language.rawValue, ofType: "lproj"),
                  let path = Bundle(path: folder)?.path(forResource: "Localizable", ofType: "strings"),
                  let data = FileManager.default.contents(atPath: path) else {
                preconditionFailure("no \(language.rawValue).lproj/Localizable.strings in \(bundle.bundlePath)")
            }
            do {
                guard let table = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: String] else {
                    preconditionFailure("\(language.rawValue).lproj/Localizable.strings is not a table of strings")
                }
                tables[language] = table
            } catch {
                // A broken table is a programming error the key-coverage test catches, not a runtime condition.
                preconditionFailure("\(language.rawValue).lproj/Localizable.strings does not parse: \(error)")
            }
        }
        self.tables = tables
    }

    /// What a page shows for a key no table has: visible, so the page tests catch it.
    static func missing(_ key: String) -> String { "⟦\(key)⟧" }

    func text(_ key: String, in language: Language) -> String {
        tables[language]?[key] ?? Self.missing(key)
    }
}

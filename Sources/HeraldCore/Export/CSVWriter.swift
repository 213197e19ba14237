/// Every CSV Herald writes (the device export, the campaign report) is written here, so that no
/// cell of it can be run by a spreadsheet as a formula, whatever a device, an import or an editor
/// put in it: OWASP's rule ("CSV Injection"), taken a little wider. A cell whose first character
/// is a tab, CR or LF, or whose first character after leading white space is `=`, `+`, `-`, `@`
/// or one of their fullwidth forms (`＝ ＋ － ＠`, which spreadsheets in CJK locales read as the
/// ASCII ones), is written with a `'` in front; then a cell holding a comma, a quote or a line
/// break is quoted (RFC 4180). A cell that already starts with `'`s before such a start gets one
/// more, so `unguarded` can take exactly one off again on import and an export imports back as it
/// was.
public enum CSVWriter {
    /// One record, its cells separated by commas, without a line end.
    public static func record(_ cells: [String]) -> String {
        cells.map(cell).joined(separator: ",")
    }

    /// One record ended by CRLF, as RFC 4180 ends lines.
    public static func row(_ cells: [String]) -> String {
        record(cells) + "\r\n"
    }

    /// A cell as written: guarded, then quoted when it must be.
    public static func cell(_ text: String) -> String {
        let text = opensFormula(text.unicodeScalars.drop { $0 == "'" }) ? "'" + text : text
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A cell as read back (unquoted by the reader) without the `'` `cell` put in front of it; any
    /// other text as it is.
    public static func unguarded(_ text: String) -> String {
        guard text.first == "'", opensFormula(text.unicodeScalars.drop { $0 == "'" }) else { return text }
        return String(text.dropFirst())
    }

    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\u{FF1D}", "\u{FF0B}", "\u{FF0D}", "\u{FF20}"]
    static let controlStarts: Set<Unicode.Scalar> = ["\t", "\r", "\n"]

    static func opensFormula(_ scalars: Substring.UnicodeScalarView) -> Bool {
        guard let first = scalars.first else { return false }
        if controlStarts.contains(first) { return true }
        guard let start = scalars.first(where: { !$0.properties.isWhitespace }) else { return false }
        return formulaStarts.contains(start)
    }
}

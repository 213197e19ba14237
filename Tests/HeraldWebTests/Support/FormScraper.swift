import Foundation

/// What a browser would post from a page's form: each named input's value (checked boxes and
/// radios only), each textarea's text and each select's chosen option, HTML entities decoded.
/// Enough of HTML for Herald's own pages, which close every element they open.
enum FormScraper {
    /// The fields of the first `<form>` whose opening tag contains `marker`, without its `<template>`s.
    static func fields(_ html: String, form marker: String) -> [(name: String, value: String)] {
        guard let start = html.range(of: "<form[^>]*\(NSRegularExpression.escapedPattern(for: marker))", options: .regularExpression),
              let end = html.range(of: "</form>", range: start.upperBound..<html.endIndex) else { return [] }
        var form = String(html[start.lowerBound..<end.upperBound])
        form = form.replacingOccurrences(of: "<template[\\s\\S]*?</template>", with: "", options: .regularExpression)
        var fields: [(name: String, value: String, at: Int)] = []
        func add(_ pattern: String, _ make: (String, [String]) -> (String, String)?) {
            let regex = try! NSRegularExpression(pattern: pattern)
            let text = form as NSString
            for match in regex.matches(in: form, range: NSRange(location: 0, length: text.length)) {
                let groups = (1..<match.numberOfRanges).map { match.range(at: $0).location == NSNotFound ? "" : text.substring(with: match.range(at: $0)) }
                if let field = make(text.substring(with: match.range), groups) { fields.append((field.0, field.1, match.range.location)) }
            }
        }
        add("<input\\b[^>]*>") { tag, _ in
            guard let name = attribute("name", tag) else { return nil }
            let type = attribute("type", tag) ?? "text"
            if ["submit", "button", "file", "reset"].contains(type) { return nil }
            if ["checkbox", "radio"].contains(type), !tag.contains(" checked") { return nil }
            return (name, attribute("value", tag) ?? (type == "checkbox" ? "on" : ""))
        }
        add("<textarea\\b([^>]*)>([\\s\\S]*?)</textarea>") { _, groups in
            guard let name = attribute("name", groups[0]) else { return nil }
            // A browser drops one line break right after the opening tag and posts CRLF line ends.
            var text = decode(groups[1])
            if text.hasPrefix("\n") { text.removeFirst() }
            return (name, text.replacingOccurrences(of: "\n", with: "\r\n"))
        }
        add("<select\\b([^>]*)>([\\s\\S]*?)</select>") { _, groups in
            guard let name = attribute("name", groups[0]) else { return nil }
            let options = groups[1].components(separatedBy: "<option").dropFirst()
            let chosen = options.first { $0.contains(" selected") } ?? options.first ?? ""
            return (name, attribute("value", "<option" + chosen) ?? "")
        }
        return fields.sorted { $0.at < $1.at }.map { ($0.name, $0.value) }
    }

    static func attribute(_ name: String, _ tag: String) -> String? {
        guard let range = tag.range(of: "\\s\(name)=\"([^\"]*)\"", options: .regularExpression) else { return nil }
        let raw = tag[range].drop { $0 != "\"" }.dropFirst().dropLast()
        return decode(String(raw))
    }

    static func decode(_ text: String) -> String {
        var result = text
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&#x27;", "'"), ("&#x2F;", "/"),
                                    ("&#x60;", "`"), ("&#x3D;", "=")] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        return result.replacingOccurrences(of: "&amp;", with: "&")
    }
}

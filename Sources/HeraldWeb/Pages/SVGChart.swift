/// Small bar charts as inline SVG, built on the server (the CSP allows no external or inline
/// scripts, and a chart needs none). Text is escaped; colours come from the stylesheet's classes.
/// The figures a person reads (axis values, bar titles, hours) are in the page's digits
/// (`words.number`); coordinates stay ASCII. In Persian and Hebrew the legend runs from the right,
/// each swatch at its label's start (right) side.
enum SVGChart {
    struct Series: Sendable {
        var label: String
        /// `chart-a`, `chart-b`: a CSS class giving the bar's fill.
        var cssClass: String
    }

    /// Every chart's frame, in SVG user units.
    static let width = 560, height = 220, left = 48, bottom = 32, top = 28
    static let plotHeight = height - bottom - top

    /// Four grid steps of whole numbers: the top is the largest value rounded up to a multiple of 4.
    static func scale(_ values: [[Int]]) -> Int {
        max(4, ((values.flatMap { $0 }.max() ?? 0) + 3) / 4 * 4)
    }

    /// The element, its title and the grid with its axis values.
    static func opening(title: String, maximum: Int, words: Localized) -> String {
        var svg = "<svg class=\"chart\" viewBox=\"0 0 \(width) \(height)\" role=\"img\" aria-label=\"\(escape(title))\" xmlns=\"http://www.w3.org/2000/svg\">"
        svg += "<title>\(escape(title))</title>"
        for step in 0...4 {
            let y = top + plotHeight - plotHeight * step / 4
            svg += "<line class=\"grid\" x1=\"\(left)\" y1=\"\(y)\" x2=\"\(width - 4)\" y2=\"\(y)\"/>"
            // `direction="ltr"`: the value ends at the axis on every page (in an RTL page "end" would be its left).
            svg += "<text class=\"axis\" x=\"\(left - 6)\" y=\"\(y + 4)\" text-anchor=\"end\" direction=\"ltr\">\(words.number(maximum * step / 4))</text>"
        }
        return svg
    }

    /// The legend and the end of the element. Left to right, each entry is a swatch then its label
    /// from the left edge; right to left, from the right edge, the swatch at the label's right and
    /// the label anchored at its own start (its right end), so the two never overlap.
    static func closing(_ series: [Series], words: Localized) -> String {
        var svg = ""
        let rightToLeft = words.language.isRightToLeft
        for (index, serie) in series.enumerated() {
            let label = escape(serie.label)
            if rightToLeft {
                let x = width - 4 - index * 130
                svg += "<rect class=\"\(serie.cssClass)\" x=\"\(x - 12)\" y=\"6\" width=\"12\" height=\"12\"/><text class=\"legend\" x=\"\(x - 18)\" y=\"16\" text-anchor=\"start\" direction=\"rtl\">\(label)</text>"
            } else {
                let x = left + index * 130
                svg += "<rect class=\"\(serie.cssClass)\" x=\"\(x)\" y=\"6\" width=\"12\" height=\"12\"/><text class=\"legend\" x=\"\(x + 18)\" y=\"16\" text-anchor=\"start\" direction=\"ltr\">\(label)</text>"
            }
        }
        return svg + "</svg>"
    }

    /// Grouped bars: one group per category (variant), one bar per series (opens, conversions).
    static func groupedBars(title: String, categories: [String], series: [Series], values: [[Int]], words: Localized) -> String {
        let maximum = scale(values)
        let groupWidth = (width - left - 8) / max(1, categories.count)
        let barWidth = min(56, max(6, (groupWidth - 16) / max(1, series.count)))
        var svg = opening(title: title, maximum: maximum, words: words)
        for (group, category) in categories.enumerated() {
            let x0 = left + group * groupWidth + (groupWidth - barWidth * series.count) / 2
            for (index, serie) in series.enumerated() {
                let value = group < values.count && index < values[group].count ? values[group][index] : 0
                let barHeight = plotHeight * value / maximum
                let x = x0 + index * barWidth
                svg += "<rect class=\"\(serie.cssClass)\" x=\"\(x)\" y=\"\(top + plotHeight - barHeight)\" width=\"\(barWidth - 2)\" height=\"\(barHeight)\"><title>\(escape(category)) · \(escape(serie.label)): \(words.number(value))</title></rect>"
            }
            svg += "<text class=\"axis\" x=\"\(x0 + barWidth * series.count / 2)\" y=\"\(height - 10)\" text-anchor=\"middle\">\(escape(category))</text>"
        }
        return svg + closing(series, words: words)
    }

    /// A trend by hour: one thin column per series in each hour, the hour's label under every few
    /// columns (at most eight labels, so they never overlap), times in UTC like the API's.
    static func hourly(title: String, hours: [String], series: [Series], values: [[Int]], words: Localized) -> String {
        let plotWidth = width - left - 8
        let maximum = scale(values)
        let slot = Double(plotWidth) / Double(max(1, hours.count))
        let column = max(1, slot * 0.8 / Double(max(1, series.count)))
        let labelEvery = max(1, (hours.count + 7) / 8)
        var svg = opening(title: title, maximum: maximum, words: words)
        for (index, hour) in hours.enumerated() {
            let x0 = Double(left) + slot * Double(index) + slot * 0.1
            for (number, serie) in series.enumerated() {
                let value = index < values.count && number < values[index].count ? values[index][number] : 0
                guard value > 0 else { continue }
                let barHeight = plotHeight * value / maximum
                svg += "<rect class=\"\(serie.cssClass)\" x=\"\(Self.fixed(x0 + column * Double(number)))\" y=\"\(top + plotHeight - barHeight)\" width=\"\(Self.fixed(column))\" height=\"\(barHeight)\"><title>\(escape(words.shortTime(hour))) · \(escape(serie.label)): \(words.number(value))</title></rect>"
            }
            if index % labelEvery == 0 {
                let label = hourLabel(hour, words: words)
                svg += "<text class=\"axis\" x=\"\(Self.fixed(x0 + slot * 0.4))\" y=\"\(height - 10)\" text-anchor=\"middle\">\(escape(label))</text>"
            }
        }
        return svg + closing(series, words: words)
    }

    /// "2026-11-23T20:00:00Z" → "23 20:00": the day and hour in UTC, enough under a column, in
    /// the page's digits ("۲۳ ۲۰:۰۰").
    static func hourLabel(_ hour: String, words: Localized) -> String {
        let day = Int(hour.dropFirst(8).prefix(2)), time = String(hour.dropFirst(11).prefix(5))
        guard hour.count >= 16, let day else { return hour }
        return "\(words.number(day)) \(words.timeText(time))"
    }

    static func fixed(_ value: Double) -> String { String(Double(Int((value * 10).rounded())) / 10) }

    /// Text safe inside SVG/HTML text and attribute values.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}

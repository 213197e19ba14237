import HeraldApp
import HeraldCore

/// The journey's steps and branches as inline SVG, drawn on the server like the report's charts
/// (`SVGChart`): each step a box with its name, what it does and, once the journey is published,
/// its figures from the report; arrows as `JourneyDiagramLayout` places them, a branch's labelled
/// then and else. Text is escaped; colours come from the stylesheet.
enum JourneyDiagram {
    /// A step's figures, over every published version (devices move between versions by step name).
    struct Figures: Sendable, Equatable {
        var entered = 0, waiting = 0, sent = 0, opened = 0, converted = 0, exited = 0
    }

    /// The report's figures by step name.
    static func figures(_ report: JourneyReport) -> [String: Figures] {
        var figures: [String: Figures] = [:]
        for step in report.steps {
            var figure = figures[step.name] ?? Figures()
            figure.entered += step.reached
            figure.waiting += step.type == "wait" ? step.waiting : 0
            figure.sent += step.sent
            figure.opened += step.opened
            figure.converted += step.converted
            figure.exited += step.type == "exit" ? step.reached : 0
            figures[step.name] = figure
        }
        return figures
    }

    static let nameCharacters = 34

    /// The diagram; `figures` nil before the journey is published (nothing to count yet).
    static func svg(_ definition: JourneyDefinition, figures: [String: Figures]?, words: Localized) -> String {
        let layout = JourneyDiagramLayout(steps: definition.steps.count, links: JourneyDiagramLayout.links(definition),
                                          rightToLeft: words.language.direction == "rtl")
        let title = words.text("journeys.diagram.title")
        var svg = "<svg class=\"journey-diagram\" viewBox=\"0 0 \(layout.width) \(layout.height)\" width=\"\(layout.width)\" role=\"img\" aria-label=\"\(SVGChart.escape(title))\""
        svg += " direction=\"\(words.language.direction)\" xmlns=\"http://www.w3.org/2000/svg\"><title>\(SVGChart.escape(title))</title>"
        svg += "<defs><marker id=\"journey-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path class=\"link-head\" d=\"M0,0 L10,5 L0,10 z\"/></marker></defs>"
        for arrow in layout.arrows {
            let points = arrow.points.map { "\($0.x),\($0.y)" }.joined(separator: " ")
            svg += "<polyline class=\"link\(arrow.link.label.map { " link-\($0.rawValue)" } ?? "")\" points=\"\(points)\" marker-end=\"url(#journey-arrow)\"/>"
            if let label = arrow.link.label {
                let text = words.text("journeys.diagram.\(label.rawValue)")
                svg += "<text class=\"link-label\" x=\"\(arrow.labelAt.x)\" y=\"\(arrow.labelAt.y)\">\(SVGChart.escape(text))</text>"
            }
        }
        let centre = JourneyDiagramLayout.boxWidth / 2
        for (index, step) in definition.steps.enumerated() {
            let box = layout.boxes[index]
            let x = box.x + centre
            let name = step.name.count > nameCharacters ? String(step.name.prefix(nameCharacters - 1)) + "…" : step.name
            svg += "<g class=\"step-box step-\(step.typeName)\"><title>\(SVGChart.escape(step.name))</title>"
            svg += "<rect x=\"\(box.x)\" y=\"\(box.y)\" width=\"\(JourneyDiagramLayout.boxWidth)\" height=\"\(JourneyDiagramLayout.boxHeight)\" rx=\"8\"/>"
            var lines = [(words.text("journeys.diagram.numbered", words.number(index + 1), name), "step-name")] + summary(step, words: words).map { ($0, "step-what") }
            if let figure = figures?[step.name] ?? figures.map({ _ in Figures() }) {
                lines += counts(step, figure, words: words).map { ($0, "step-counts") }
            }
            for (line, (text, cssClass)) in lines.prefix(4).enumerated() {
                svg += "<text class=\"\(cssClass)\" x=\"\(x)\" y=\"\(box.y + 19 + line * 18)\" text-anchor=\"middle\">\(SVGChart.escape(text))</text>"
            }
            svg += "</g>"
        }
        return svg + "</svg>"
    }

    /// What the step does, in a few words, a line or two short enough for its box ("wait 60 minutes").
    static func summary(_ step: JourneyStep, words: Localized) -> [String] {
        switch step.kind {
        case .send(let spec, _):
            let variants = spec.variants.count
            return [variants > 1 ? words.text("journeys.diagram.send_ab", words.number(variants)) : words.text("journeys.diagram.send")]
        case .wait(let wait):
            if let time = wait.untilLocalTime { return [words.text("journeys.diagram.wait_until_time", words.isolate(time.description))] }
            if let until = wait.until {
                return [words.text("journeys.diagram.wait_until", condition(until, words: words)),
                        words.text("journeys.diagram.at_most", words.number(wait.minutes ?? 0))]
            }
            return [words.text("journeys.diagram.wait", words.number(wait.minutes ?? 0))]
        case .branch(let condition, _, _):
            return [words.text("journeys.diagram.branch", Self.condition(condition, words: words))]
        case .exit:
            return [words.text("journeys.diagram.exit")]
        }
    }

    static func condition(_ condition: JourneyCondition, words: Localized) -> String {
        switch condition {
        case .opened: words.text("journeys.condition.opened")
        case .converted: words.text("journeys.condition.converted")
        case .event(let name): words.text("journeys.condition.event_named", words.isolate(name))
        case .segment: words.text("journeys.condition.segment")
        }
    }

    /// The step's figures, one or two lines.
    static func counts(_ step: JourneyStep, _ figure: Figures, words: Localized) -> [String] {
        let separator = words.text("list.separator")
        var first = [words.text("journeys.figure.entered", words.number(figure.entered))]
        switch step.kind {
        case .wait: first.append(words.text("journeys.figure.waiting", words.number(figure.waiting)))
        case .exit: first.append(words.text("journeys.figure.exited", words.number(figure.exited)))
        case .send, .branch: break
        }
        guard case .send = step.kind else { return [first.joined(separator: separator)] }
        return [first.joined(separator: separator), [words.text("journeys.figure.sent", words.number(figure.sent)),
                                                     words.text("journeys.figure.opened", words.number(figure.opened)),
                                                     words.text("journeys.figure.converted", words.number(figure.converted))].joined(separator: separator)]
    }
}

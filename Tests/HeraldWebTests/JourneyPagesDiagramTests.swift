import Testing
@testable import HeraldCore
@testable import HeraldWeb

/// The journey diagram's geometry (pure) and its SVG: steps in one column, an arrow to the very
/// next step straight down, every other arrow in a lane of its own beside the column, branches
/// labelled then/else, mirrored right to left.
@Suite struct JourneyPagesDiagramTests {
    typealias Layout = JourneyDiagramLayout

    @Test func theWelcomeJourneysArrowsFollowItsStepsAndBranches() {
        let links = Layout.links(JourneyPageFixtures.definition())
        // settle → welcome → read? → check; check then done (5), else nudge (4); nudge → done; done: nowhere.
        #expect(links == [
            Layout.Link(from: 0, to: 1), Layout.Link(from: 1, to: 2), Layout.Link(from: 2, to: 3),
            Layout.Link(from: 3, to: 5, label: .then), Layout.Link(from: 3, to: 4, label: .otherwise), Layout.Link(from: 4, to: 5),
        ])
    }

    @Test func anArrowToTheNextStepIsStraightAndAnyOtherTakesALane() {
        let layout = Layout(steps: 6, links: Layout.links(JourneyPageFixtures.definition()), rightToLeft: false)
        #expect(layout.arrows.map(\.lane) == [nil, nil, nil, 0, nil, nil])
        let straight = layout.arrows[0]
        let centre = Layout.margin + Layout.boxWidth / 2
        #expect(straight.points == [Layout.Point(x: centre, y: layout.boxes[0].y + Layout.boxHeight), Layout.Point(x: centre, y: layout.boxes[1].y)])
        // The then-arrow goes out of the branch's side, down its lane, and into the exit's side.
        let then = layout.arrows[3]
        let side = Layout.margin + Layout.boxWidth, lane = side + Layout.laneGap
        #expect(then.points.map(\.x) == [side, lane, lane, side])
        #expect(then.points[0].y > layout.boxes[3].y && then.points[0].y < layout.boxes[3].y + Layout.boxHeight)
        #expect(then.points[3].y > layout.boxes[5].y && then.points[3].y < layout.boxes[5].y + Layout.boxHeight)
        #expect(layout.width == lane + Layout.margin)
        #expect(layout.height == layout.boxes[5].y + Layout.boxHeight + Layout.margin)
    }

    @Test func overlappingArrowsTakeDifferentLanesAndTheShortestIsNearest() {
        // 0 → 3 and 1 → 2 overlap (and 1 → 2 is straight); 0 → 2 and 2 → 4 share the step 2,
        // where one arrives and the other leaves, so they cannot share a lane.
        let links = [Layout.Link(from: 0, to: 3), Layout.Link(from: 0, to: 2), Layout.Link(from: 2, to: 4), Layout.Link(from: 1, to: 2), Layout.Link(from: 4, to: 5)]
        let layout = Layout(steps: 6, links: links, rightToLeft: false)
        #expect(layout.arrows.map(\.lane) == [2, 0, 1, nil, nil])
        // Two arrows to the same next step: one straight, the other in a lane.
        let twice = Layout(steps: 3, links: [Layout.Link(from: 0, to: 1, label: .then), Layout.Link(from: 0, to: 1, label: .otherwise)], rightToLeft: false)
        #expect(twice.arrows.map(\.lane) == [nil, 0])
    }

    @Test func rightToLeftMirrorsTheWholePicture() {
        let links = Layout.links(JourneyPageFixtures.definition())
        let ltr = Layout(steps: 6, links: links, rightToLeft: false), rtl = Layout(steps: 6, links: links, rightToLeft: true)
        #expect(rtl.width == ltr.width && rtl.height == ltr.height)
        for (left, right) in zip(ltr.boxes, rtl.boxes) { #expect(right.x == ltr.width - left.x - Layout.boxWidth && right.y == left.y) }
        for (left, right) in zip(ltr.arrows, rtl.arrows) {
            #expect(right.points == left.points.map { Layout.Point(x: ltr.width - $0.x, y: $0.y) })
        }
        // The lanes are on the left: the then-arrow's lane is left of the boxes.
        #expect(rtl.arrows[3].points[1].x < rtl.boxes[3].x)
    }

    @Test func theSVGShowsEachStepWithItsFiguresAndTheBranchLabelsInThePagesLanguage() {
        let definition = JourneyPageFixtures.definition()
        let figures = JourneyDiagram.figures(JourneyPageFixtures.report())
        #expect(figures["settle"] == JourneyDiagram.Figures(entered: 100, waiting: 10))
        #expect(figures["welcome"] == JourneyDiagram.Figures(entered: 90, sent: 80, opened: 30, converted: 5))
        #expect(figures["done"] == JourneyDiagram.Figures(entered: 50, waiting: 0, exited: 50))
        let english = JourneyDiagram.svg(definition, figures: figures, words: Localized(language: .en))
        #expect(english.hasPrefix("<svg class=\"journey-diagram\"") && english.hasSuffix("</svg>"))
        #expect(english.components(separatedBy: "<rect ").count - 1 == 6)
        for text in ["1. settle", "wait 60 minutes", "entered 100, waiting 10", "2. welcome", "send one of 2 variants",
                     "sent 80, opened 30, converted 5", "wait until opened the last message", "at most 1440 minutes",
                     "if opened the last message", ">then<", ">else<", "6. done", "entered 50, exited 50"] {
            #expect(english.contains(text), "\(text)")
        }
        // Not yet published: no figures at all.
        #expect(!JourneyDiagram.svg(definition, figures: nil, words: Localized(language: .en)).contains("entered"))
        let persian = JourneyDiagram.svg(definition, figures: figures, words: Localized(language: .fa))
        #expect(persian.contains("direction=\"rtl\"") && persian.contains(">آنگاه<") && persian.contains(">وگرنه<") && persian.contains("ورود ۱۰۰"))
        // A name is text, never markup.
        var hostile = definition
        hostile.steps[0].name = "<script>"
        #expect(JourneyDiagram.svg(hostile, figures: nil, words: Localized(language: .en)).contains("&lt;script&gt;"))
    }
}

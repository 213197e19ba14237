import HeraldCore

/// Where the journey diagram's boxes and arrows go: pure geometry, no text and no I/O, so it is
/// tested on its own. The steps stand in one column in list order (a journey only goes forward,
/// so every arrow points down); an arrow to the very next step is a short line between the two
/// boxes, and any other runs down a lane beside the column, lanes chosen so that no two arrows
/// share a stretch of lane. Right to left, the whole picture is mirrored: lanes on the left.
struct JourneyDiagramLayout: Sendable, Equatable {
    /// An arrow out of a step: to the step `to` (an index), labelled when it is a branch's.
    struct Link: Sendable, Equatable {
        enum Label: String, Sendable { case then, otherwise = "else" }
        var from: Int
        var to: Int
        var label: Label?
    }

    struct Point: Sendable, Equatable {
        var x: Int
        var y: Int
    }

    struct Box: Sendable, Equatable {
        var x: Int
        var y: Int
    }

    struct Arrow: Sendable, Equatable {
        var link: Link
        /// The lane it runs down (0 nearest the boxes), nil for a line straight to the next box.
        var lane: Int?
        /// The path, from the leaving box's edge to the arrival box's edge.
        var points: [Point]
        /// Where its label (then/else) stands.
        var labelAt: Point
    }

    static let boxWidth = 300, boxHeight = 80, gap = 40, margin = 12, laneGap = 22

    let boxes: [Box]
    let arrows: [Arrow]
    let width: Int
    let height: Int
    let rightToLeft: Bool

    /// The arrows of `definition`'s steps: where each goes next (a step past the last one goes
    /// nowhere: the device is done).
    static func links(_ definition: JourneyDefinition) -> [Link] {
        var links: [Link] = []
        for (index, step) in definition.steps.enumerated() {
            switch step.kind {
            case .send, .wait:
                let next = definition.next(after: index)
                if next < definition.steps.count { links.append(Link(from: index, to: next)) }
            case .branch(_, let then, let otherwise):
                if let target = definition.index(of: then) { links.append(Link(from: index, to: target, label: .then)) }
                if let target = definition.index(of: otherwise) { links.append(Link(from: index, to: target, label: .otherwise)) }
            case .exit:
                break
            }
        }
        return links
    }

    init(steps count: Int, links: [Link], rightToLeft: Bool) {
        self.rightToLeft = rightToLeft
        let top = { (index: Int) in Self.margin + index * (Self.boxHeight + Self.gap) }
        // The first link to the next step is drawn straight; the rest take lanes, the shortest
        // nearest the boxes, so that long arrows go round short ones.
        var straight: Set<Int> = []
        var laned: [Int] = []
        for (position, link) in links.enumerated() {
            if link.to == link.from + 1, !links[..<position].contains(where: { $0.from == link.from && $0.to == link.to }) {
                straight.insert(position)
            } else {
                laned.append(position)
            }
        }
        laned.sort { (links[$0].to - links[$0].from, $0) < (links[$1].to - links[$1].from, $1) }
        var lanes: [Int: Int] = [:]
        var taken: [[ClosedRange<Int>]] = []
        for position in laned {
            let span = links[position].from...links[position].to
            if let free = taken.firstIndex(where: { !$0.contains { $0.overlaps(span) } }) {
                taken[free].append(span)
                lanes[position] = free
            } else {
                taken.append([span])
                lanes[position] = taken.count - 1
            }
        }
        let laneStart = Self.margin + Self.boxWidth + Self.laneGap
        let totalWidth = taken.isEmpty ? 2 * Self.margin + Self.boxWidth : laneStart + (taken.count - 1) * Self.laneGap + Self.margin
        width = totalWidth
        height = max(1, count) * (Self.boxHeight + Self.gap) - Self.gap + 2 * Self.margin
        let mirror = { (x: Int) in rightToLeft ? totalWidth - x : x }
        boxes = (0..<count).map { Box(x: rightToLeft ? totalWidth - Self.margin - Self.boxWidth : Self.margin, y: top($0)) }
        let centre = Self.margin + Self.boxWidth / 2, side = Self.margin + Self.boxWidth
        arrows = links.enumerated().map { position, link in
            if let lane = lanes[position] {
                let x = laneStart + lane * Self.laneGap
                // Leaving below the middle and arriving above it, so an arrow that leaves a step
                // and one that arrives at it never meet.
                let leave = top(link.from) + Self.boxHeight * 2 / 3, arrive = top(link.to) + Self.boxHeight / 3
                let points = [Point(x: mirror(side), y: leave), Point(x: mirror(x), y: leave), Point(x: mirror(x), y: arrive), Point(x: mirror(side), y: arrive)]
                return Arrow(link: link, lane: lane, points: points, labelAt: Point(x: mirror(side + 4), y: leave - 4))
            }
            let leave = top(link.from) + Self.boxHeight, arrive = top(link.to)
            return Arrow(link: link, lane: nil, points: [Point(x: mirror(centre), y: leave), Point(x: mirror(centre), y: arrive)],
                         labelAt: Point(x: mirror(centre + 6), y: leave + Self.gap / 2 + 4))
        }
    }
}

import HeraldCore

/// Building the list of steps without JavaScript: every button other than Save posts the whole
/// form with an `action` naming the change, and the same form comes back changed, nothing saved.
extension JourneyForm {
    enum Edit: Equatable {
        /// A step of `type` after the step `after` (nil: first).
        case add(after: Int?, type: String)
        case moveUp(Int), moveDown(Int), delete(Int)
        /// A change to a send step's message rows (a variant or data pair more or less).
        case message(step: Int, CampaignForm.RowEdit)
        /// Nothing but showing the form again, for the fields of a step's newly chosen type.
        case refresh

        /// The edit a submit button's `action` value names (`add:3:wait`, `up:3`,
        /// `remove_variant:3v1`), if any.
        init?(action: String) {
            let parts = action.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let argument = parts.count > 1 ? parts[1] : ""
            switch (parts[0], parts.count) {
            case ("refresh", 1): self = .refresh
            case ("add", 3) where JourneyForm.stepTypes.contains(parts[2]):
                if argument == "start" { self = .add(after: nil, type: parts[2]) } else if let step = Int(argument) {
                    self = .add(after: step, type: parts[2])
                } else { return nil }
            case ("up", 2): guard let step = Int(argument) else { return nil }; self = .moveUp(step)
            case ("down", 2): guard let step = Int(argument) else { return nil }; self = .moveDown(step)
            case ("delete", 2): guard let step = Int(argument) else { return nil }; self = .delete(step)
            case ("add_variant", 2): guard let step = Int(argument) else { return nil }; self = .message(step: step, .addVariant)
            case ("add_data", 2): guard let step = Int(argument) else { return nil }; self = .message(step: step, .addData)
            case ("remove_variant", 2), ("add_variant_data", 2):
                // The composer's variant template names its row `<step>v<row>`.
                let pieces = argument.split(separator: "v").compactMap { Int($0) }
                guard pieces.count == 2 else { return nil }
                self = .message(step: pieces[0], parts[0] == "remove_variant" ? .removeVariant(pieces[1]) : .addVariantData(pieces[1]))
            default: return nil
            }
        }
    }

    /// Applies `edit`; false when it cannot (a step that is not there, the 50th step, the 10th variant).
    @discardableResult
    mutating func apply(_ edit: Edit, words: Localized) -> Bool {
        func index(_ id: Int) -> Int? { steps.firstIndex { $0.id == id } }
        switch edit {
        case .refresh:
            return true
        case .add(let after, let type):
            guard steps.count < JourneyDefinition.maximumSteps else { return false }
            let position: Int
            if let after { guard let found = index(after) else { return false }; position = found + 1 } else { position = 0 }
            var row = StepRow(id: (steps.map(\.id).max() ?? -1) + 1, type: type)
            var number = steps.count + 1
            while steps.contains(where: { $0.name == words.text("journeys.step.default_name", words.number(number)) }) { number += 1 }
            row.name = words.text("journeys.step.default_name", words.number(number))
            steps.insert(row, at: position)
        case .moveUp(let id):
            guard let found = index(id), found > 0 else { return false }
            steps.swapAt(found, found - 1)
        case .moveDown(let id):
            guard let found = index(id), found + 1 < steps.count else { return false }
            steps.swapAt(found, found + 1)
        case .delete(let id):
            guard let found = index(id) else { return false }
            steps.remove(at: found)
        case .message(let id, let change):
            guard let found = index(id) else { return false }
            return steps[found].message.apply(change)
        }
        return true
    }
}

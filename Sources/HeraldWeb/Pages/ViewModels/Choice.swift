/// One option of a select, radio group or set of check boxes, and whether it is chosen.
struct Choice: Sendable {
    let value: String
    let text: String
    let selected: Bool

    init(_ value: String, text: String? = nil, selected: Bool = false) {
        self.value = value
        self.text = text ?? value
        self.selected = selected
    }
}

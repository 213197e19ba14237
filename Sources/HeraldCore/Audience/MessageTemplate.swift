/// A title or body with variables filled in per device: `Hello {{first_name | default: "there"}}`.
///
/// A variable names a device attribute (`platform`, `language`, `country`, `time_zone`,
/// `app_version`, `app_id`) or a property (`first_name`, or `properties.first_name`). Any variable
/// a device may lack needs a default, so that no device ever gets "Hello ". Pure: parsed when a
/// campaign is saved, rendered when a run is planned.
public struct MessageTemplate: Sendable, Equatable {
    public enum Piece: Sendable, Equatable {
        case text(String)
        case variable(name: String, fallback: String?)
    }

    public var pieces: [Piece]

    /// The variables, in order of appearance.
    public var variables: [(name: String, fallback: String?)] {
        pieces.compactMap { if case .variable(let name, let fallback) = $0 { (name, fallback) } else { nil } }
    }

    public var hasVariables: Bool { pieces.contains { if case .variable = $0 { true } else { false } } }

    /// Attributes every device has, which need no default.
    public static let alwaysPresent: Set<String> = ["platform", "token"]

    /// Splits `text` into text and variables, or says what is malformed.
    public static func parse(_ text: String) -> Result<MessageTemplate, TemplateProblem> {
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                return .failure(TemplateProblem(code: "invalid_variable", message: "a variable opened with {{ is never closed with }}"))
            }
            let inside = rest[open.upperBound..<close.lowerBound]
            switch parseVariable(inside) {
            case .success(let piece): pieces.append(piece)
            case .failure(let problem): return .failure(problem)
            }
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        return .success(MessageTemplate(pieces: pieces))
    }

    static func parseVariable(_ inside: Substring) -> Result<Piece, TemplateProblem> {
        let parts = inside.split(separator: "|", maxSplits: 1)
        let name = (parts.first ?? "").trimmingSpaces
        guard isVariableName(name) else {
            return .failure(TemplateProblem(code: "invalid_variable",
                message: "{{\(inside)}} is not a variable: use a name such as {{first_name}} or {{properties.city | default: \"your city\"}}"))
        }
        guard parts.count == 2 else { return .success(.variable(name: name, fallback: nil)) }
        let filter = parts[1].trimmingSpaces
        guard filter.hasPrefix("default:") else {
            return .failure(TemplateProblem(code: "invalid_variable", message: "after | only default: \"…\" is understood, in {{\(inside)}}"))
        }
        let quoted = Substring(filter.dropFirst("default:".count)).trimmingSpaces
        guard quoted.count >= 2, quoted.first == "\"", quoted.last == "\"" else {
            return .failure(TemplateProblem(code: "invalid_variable", message: "a default is written in double quotes, as default: \"your city\", in {{\(inside)}}"))
        }
        return .success(.variable(name: name, fallback: String(quoted.dropFirst().dropLast())))
    }

    static func isVariableName(_ name: String) -> Bool {
        let bare = name.hasPrefix("properties.") ? String(name.dropFirst("properties.".count)) : name
        return DeviceLimits.isPropertyName(bare)
    }

    /// The text for `device`: each variable's value, else its default, else nothing.
    public func render(for device: Device) -> String {
        var result = ""
        for piece in pieces {
            switch piece {
            case .text(let text): result += text
            case .variable(let name, let fallback):
                let value = device.value(of: name)
                result += (value?.isEmpty == false ? value : nil) ?? fallback ?? ""
            }
        }
        return result
    }

    /// The text with every variable at its default: what the composer previews and measures.
    public var withDefaults: String {
        pieces.map { piece in
            switch piece {
            case .text(let text): text
            case .variable(let name, let fallback): fallback ?? "{\(name)}"
            }
        }.joined()
    }
}

/// Why a template cannot be used.
public struct TemplateProblem: Error, Sendable, Equatable {
    public var code: String
    public var message: String
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

/// Checks an FCM condition: topics combined with `&&`, `||`, `!` and parentheses, such as
/// `'stock-GOOG' in topics || 'industry-tech' in topics`, with at most five topics.
///
///     expression := conjunction ("||" conjunction)*
///     conjunction := unary ("&&" unary)*
///     unary := "!" unary | "(" expression ")" | quoted-topic "in" "topics"
enum ConditionParser {
    static let maximumTopics = 5

    /// The topics the condition names, or the reason it is malformed.
    static func topics(in condition: String) -> Result<[String], ConditionError> {
        var parser = Parser(tokens: [])
        do {
            parser.tokens = try tokenize(condition)
            guard !parser.tokens.isEmpty else { throw ConditionError("the condition is empty") }
            try parser.expression(depth: 0)
            if parser.position < parser.tokens.count { throw ConditionError("unexpected \(parser.tokens[parser.position]) in the condition") }
        } catch let error as ConditionError {
            return .failure(error)
        } catch {
            return .failure(ConditionError("\(error)"))
        }
        if parser.topics.count > maximumTopics {
            return .failure(ConditionError("the condition names \(parser.topics.count) topics; at most \(maximumTopics) are allowed"))
        }
        return .success(parser.topics)
    }

    enum Token: Equatable, CustomStringConvertible {
        case topic(String), word(String), and, or, not, open, close
        var description: String {
            switch self {
            case .topic(let name): "'\(name)'"
            case .word(let word): "\"\(word)\""
            case .and: "&&"
            case .or: "||"
            case .not: "!"
            case .open: "("
            case .close: ")"
            }
        }
    }

    static func tokenize(_ text: String) throws(ConditionError) -> [Token] {
        var tokens: [Token] = []
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let rest = text[index...]
            if character == " " || character == "\t" {
                index = text.index(after: index)
            } else if rest.hasPrefix("&&") {
                tokens.append(.and); index = text.index(index, offsetBy: 2)
            } else if rest.hasPrefix("||") {
                tokens.append(.or); index = text.index(index, offsetBy: 2)
            } else if character == "!" || character == "(" || character == ")" {
                tokens.append(character == "!" ? .not : character == "(" ? .open : .close)
                index = text.index(after: index)
            } else if character == "'" || character == "\"" {
                let start = text.index(after: index)
                guard let end = text[start...].firstIndex(of: character) else { throw ConditionError("unterminated topic name in the condition") }
                let name = text[start..<end]
                guard FormatRules.isTopicName(name) else { throw ConditionError("invalid topic name '\(name)' in the condition") }
                tokens.append(.topic(String(name)))
                index = text.index(after: end)
            } else if character.isLetter {
                let end = rest.firstIndex { !$0.isLetter } ?? text.endIndex
                tokens.append(.word(String(text[index..<end])))
                index = end
            } else {
                throw ConditionError("unexpected character \"\(character)\" in the condition")
            }
        }
        return tokens
    }

    struct Parser {
        var tokens: [Token]
        var position = 0
        var topics: [String] = []

        mutating func expression(depth: Int) throws(ConditionError) {
            guard depth < 32 else { throw ConditionError("the condition nests too deeply") }
            try conjunction(depth: depth)
            while take(.or) { try conjunction(depth: depth) }
        }

        mutating func conjunction(depth: Int) throws(ConditionError) {
            try unary(depth: depth)
            while take(.and) { try unary(depth: depth) }
        }

        mutating func unary(depth: Int) throws(ConditionError) {
            if take(.not) { return try unary(depth: depth + 1) }
            if take(.open) {
                try expression(depth: depth + 1)
                guard take(.close) else { throw ConditionError("missing ) in the condition") }
                return
            }
            guard position < tokens.count, case .topic(let name) = tokens[position] else {
                throw ConditionError(position < tokens.count ? "expected a quoted topic name, found \(tokens[position])" : "the condition ends too early")
            }
            position += 1
            guard take(.word("in")), take(.word("topics")) else { throw ConditionError("expected \"in topics\" after '\(name)'") }
            topics.append(name)
        }

        private mutating func take(_ token: Token) -> Bool {
            guard position < tokens.count, tokens[position] == token else { return false }
            position += 1
            return true
        }
    }
}

struct ConditionError: Error, Equatable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

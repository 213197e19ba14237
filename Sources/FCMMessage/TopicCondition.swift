/// A parsed FCM condition: an expression over topic subscriptions such as
/// `'stock-GOOG' in topics || ('industry-tech' in topics && !'news' in topics)`.
///
/// Grammar: `||` binds looser than `&&`, which binds looser than `!`; parentheses group. A topic
/// is quoted with single quotes and followed by `in topics`. FCM allows at most five topics in one
/// condition; `topicCount` counts every mention.
///
/// FCM's guide says it "evaluates any conditions in parentheses, and then evaluates the expression
/// from left to right", which disagrees with the usual precedence when `&&` and `||` are mixed
/// without parentheses (`'a' in topics || 'b' in topics && 'c' in topics`). `description` therefore
/// always parenthesises an operand whose operator differs from its parent's, so both readings
/// agree, and `parse(_:requireGrouping: true)` refuses such ungrouped mixtures.
public indirect enum TopicCondition: Sendable, Hashable, CustomStringConvertible {
    case subscribed(String)
    case not(TopicCondition)
    case and(TopicCondition, TopicCondition)
    case or(TopicCondition, TopicCondition)

    /// FCM's limit on topics in one condition.
    public static let maximumTopics = 5

    /// Whether a device subscribed to `topics` receives a message sent to this condition.
    public func evaluate(subscriptions topics: Set<String>) -> Bool {
        switch self {
        case .subscribed(let topic): topics.contains(topic)
        case .not(let inner): !inner.evaluate(subscriptions: topics)
        case .and(let lhs, let rhs): lhs.evaluate(subscriptions: topics) && rhs.evaluate(subscriptions: topics)
        case .or(let lhs, let rhs): lhs.evaluate(subscriptions: topics) || rhs.evaluate(subscriptions: topics)
        }
    }

    /// Every topic mention, in order (a topic named twice counts twice).
    public var topicMentions: [String] {
        switch self {
        case .subscribed(let topic): [topic]
        case .not(let inner): inner.topicMentions
        case .and(let lhs, let rhs), .or(let lhs, let rhs): lhs.topicMentions + rhs.topicMentions
        }
    }

    /// The number of topic mentions, which FCM limits to five.
    public var topicCount: Int { topicMentions.count }

    /// The expression in FCM's syntax, parenthesised wherever precedence would otherwise matter.
    public var description: String {
        switch self {
        case .subscribed(let topic): "'\(topic)' in topics"
        case .not(let inner):
            if case .subscribed = inner { "!\(inner)" } else { "!(\(inner))" }
        case .and(let lhs, let rhs): "\(Self.operand(lhs, in: self)) && \(Self.operand(rhs, in: self))"
        case .or(let lhs, let rhs): "\(Self.operand(lhs, in: self)) || \(Self.operand(rhs, in: self))"
        }
    }

    private static func operand(_ operand: TopicCondition, in parent: TopicCondition) -> String {
        switch (parent, operand) {
        case (.and, .or), (.or, .and): "(\(operand))"
        default: operand.description
        }
    }

    /// Where and why a condition is malformed (`offset` counts characters from 0).
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var offset: Int
        public var reason: String

        public init(offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
        }

        public var description: String { "\(reason) at character \(offset + 1)" }
    }

    /// Parses an FCM condition expression. Topic names must match FCM's topic pattern. With
    /// `requireGrouping`, `&&` and `||` mixed without parentheses are an error (see above).
    public static func parse(_ text: String, requireGrouping: Bool = false) throws(ParseError) -> TopicCondition {
        var parser = ConditionParser(Array(text))
        parser.requireGrouping = requireGrouping
        let condition = try parser.parseOr()
        parser.skipSpaces()
        guard parser.index == parser.characters.count else {
            throw parser.error("unexpected \"\(parser.characters[parser.index])\"")
        }
        return condition
    }
}

/// A recursive-descent parser over the characters of a condition.
struct ConditionParser {
    let characters: [Character]
    var index = 0
    var depth = 0
    var requireGrouping = false

    init(_ characters: [Character]) {
        self.characters = characters
    }

    func error(_ reason: String) -> TopicCondition.ParseError {
        TopicCondition.ParseError(offset: index, reason: reason)
    }

    mutating func skipSpaces() {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
    }

    mutating func consume(_ token: String) -> Bool {
        skipSpaces()
        let expected = Array(token)
        guard index + expected.count <= characters.count,
            Array(characters[index..<index + expected.count]) == expected
        else { return false }
        index += expected.count
        return true
    }

    mutating func parseOr() throws(TopicCondition.ParseError) -> TopicCondition {
        let start = index
        var (result, chained) = try parseAnd()
        var operands = 1
        while consume("||") {
            let (next, nextChained) = try parseAnd()
            result = .or(result, next)
            chained = chained || nextChained
            operands += 1
        }
        if requireGrouping, chained, operands > 1 {
            index = start
            throw error("&& and || mixed without parentheses: FCM evaluates left to right, so group them with ( )")
        }
        return result
    }

    /// An `&&` chain, and whether it had more than one operand.
    mutating func parseAnd() throws(TopicCondition.ParseError) -> (TopicCondition, Bool) {
        var result = try parseUnary()
        var chained = false
        while consume("&&") {
            result = .and(result, try parseUnary())
            chained = true
        }
        return (result, chained)
    }

    mutating func parseUnary() throws(TopicCondition.ParseError) -> TopicCondition {
        if consume("!") { return .not(try parseUnary()) }
        return try parsePrimary()
    }

    mutating func parsePrimary() throws(TopicCondition.ParseError) -> TopicCondition {
        skipSpaces()
        guard index < characters.count else { throw error("unexpected end, expected a topic or \"(\"") }
        if consume("(") {
            depth += 1
            guard depth <= 32 else { throw error("too deeply nested") }
            let inner = try parseOr()
            guard consume(")") else { throw error("expected \")\"") }
            depth -= 1
            return inner
        }
        let quote = characters[index]
        guard quote == "'" else {
            throw error("unexpected \"\(quote)\", expected 'topic' in topics")
        }
        let start = index
        index += 1
        var name = ""
        while index < characters.count, characters[index] != quote {
            name.append(characters[index])
            index += 1
        }
        guard index < characters.count else {
            index = start
            throw error("unterminated topic name")
        }
        index += 1
        guard TopicName.isValid(name) else {
            index = start
            throw error("invalid topic name \"\(name)\" (allowed: letters, digits and - _ . ~ %)")
        }
        guard consume("in"), requireSpaceOrEnd(), consume("topics") else {
            throw error("expected \"in topics\" after '\(name)'")
        }
        return .subscribed(name)
    }

    /// "in" must be a word of its own ("intopics" is not accepted).
    mutating func requireSpaceOrEnd() -> Bool {
        index < characters.count && characters[index].isWhitespace
    }
}

/// FCM's topic names: `^[a-zA-Z0-9-_.~%]+$`, with an optional `/topics/` prefix that is stripped.
public enum TopicName {
    /// The longest topic name: FCM's pattern is `[a-zA-Z0-9-_.~%]{1,900}` (`reference/fcm.md`).
    public static let maximumLength = 900

    /// Whether `name` (without prefix) is a valid topic name.
    public static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumLength && name.unicodeScalars.allSatisfy(isAllowed)
    }

    /// `name` without a leading `/topics/`.
    public static func stripPrefix(_ name: String) -> String {
        name.hasPrefix("/topics/") ? String(name.dropFirst("/topics/".count)) : name
    }

    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "~", "%": true
        default: false
        }
    }
}

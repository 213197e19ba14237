import FCMMessage
import Testing

@Suite struct TopicConditionTests {
    @Test func parsesWithPrecedenceAndEvaluates() throws {
        let condition = try TopicCondition.parse("'a' in topics || 'b' in topics && !('c' in topics)")
        #expect(condition == .or(.subscribed("a"), .and(.subscribed("b"), .not(.subscribed("c")))))
        #expect(condition.evaluate(subscriptions: ["a"]))
        #expect(condition.evaluate(subscriptions: ["b"]))
        #expect(!condition.evaluate(subscriptions: ["b", "c"]))
        #expect(!condition.evaluate(subscriptions: []))
        #expect(condition.topicCount == 3)
        // Printed grouped, so FCM's left-to-right reading and the usual precedence agree.
        #expect(condition.description == "'a' in topics || ('b' in topics && !'c' in topics)")
        #expect(try TopicCondition.parse(condition.description) == condition)
    }

    @Test func printsParenthesesWherePrecedenceNeedsThem() throws {
        let condition = TopicCondition.and(.subscribed("news"), .or(.subscribed("b0"), .subscribed("b1")))
        #expect(condition.description == "'news' in topics && ('b0' in topics || 'b1' in topics)")
        #expect(try TopicCondition.parse(condition.description) == condition)
    }

    @Test func groupingCanBeRequired() throws {
        let text = "'a' in topics || 'b' in topics && 'c' in topics"
        #expect(throws: TopicCondition.ParseError(offset: 0,
            reason: "&& and || mixed without parentheses: FCM evaluates left to right, so group them with ( )")) {
            try TopicCondition.parse(text, requireGrouping: true)
        }
        _ = try TopicCondition.parse("'a' in topics || ('b' in topics && 'c' in topics)", requireGrouping: true)
        _ = try TopicCondition.parse("'a' in topics && 'b' in topics && !('c' in topics || 'd' in topics)", requireGrouping: true)
    }

    @Test(arguments: [
        ("\"a\" in topics", "unexpected \"\"\", expected 'topic' in topics at character 1"),
        ("", "unexpected end, expected a topic or \"(\" at character 1"),
        ("'a' in topics &&", "unexpected end, expected a topic or \"(\" at character 17"),
        ("'a b' in topics", "invalid topic name \"a b\" (allowed: letters, digits and - _ . ~ %) at character 1"),
        ("'a' in topic", "expected \"in topics\" after 'a' at character 8"),
        ("('a' in topics", "expected \")\" at character 15"),
        ("'a' in topics 'b' in topics", "unexpected \"'\" at character 15"),
        ("a in topics", "unexpected \"a\", expected 'topic' in topics at character 1"),
    ])
    func reportsWhereAConditionIsMalformed(text: String, message: String) {
        #expect(throws: (any Error).self) { try TopicCondition.parse(text) }
        do {
            _ = try TopicCondition.parse(text)
        } catch {
            #expect(error.description == message)
        }
    }
}

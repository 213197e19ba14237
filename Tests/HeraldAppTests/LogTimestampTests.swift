import Foundation
import Testing
@testable import HeraldApp

@Suite struct LogTimestampTests {
    @Test func aLogLinesTimeIsRFC3339InUTCWithMillisecondsAndNow() throws {
        let before = Date()
        let text = Log.timestamp()
        let after = Date()
        #expect(text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(text)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let parsed = try #require(formatter.date(from: text))
        #expect(parsed >= before.addingTimeInterval(-0.001) && parsed <= after)
    }
}

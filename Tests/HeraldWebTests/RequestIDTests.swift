import Foundation
import Testing
@testable import HeraldWeb

/// The ids given to requests that bring none: version-4 UUIDs that Foundation reads back as the
/// same UUID, and never the same twice.
@Suite struct RequestIDTests {
    @Test func idsAreVersion4UUIDsInLowercaseAndNeverRepeat() throws {
        let ids = (0..<10_000).map { _ in RequestID.next() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(1000) {
            let parsed = try #require(UUID(uuidString: id), "\(id)")
            #expect(parsed.uuidString.lowercased() == id)
            let characters = Array(id)
            #expect(characters[14] == "4" && "89ab".contains(characters[19]), "\(id)")
        }
    }

    @Test func theTextHoldsTheBitsInOrder() {
        #expect(RequestID.text(high: 0x0123_4567_89ab_cdef, low: 0xfedc_ba98_7654_3210) == "01234567-89ab-4def-bedc-ba9876543210")
    }
}

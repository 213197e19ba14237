import HeraldCore
import Testing

/// `apns-expiration` moved on by the time a message waited before it was sent.
@Suite struct APNSExpirationTests {
    func body(_ headers: String) -> [UInt8] {
        Array(#"{"token":"t","apns":{"headers":{\#(headers)},"payload":{"aps":{}}},"android":{"ttl":"30s"}}"#.utf8)
    }

    @Test func theInstantMovesOnByTheWaitAndNothingElseChanges() {
        let rebased = APNSExpiration.rebased(body(#""apns-priority":"10","apns-expiration":"1764100000""#), by: 40)
        #expect(String(decoding: rebased, as: UTF8.self) == String(decoding: body(#""apns-priority":"10","apns-expiration":"1764100040""#), as: UTF8.self))
    }

    @Test func zeroNoWaitAndNoHeaderAreLeftAsTheyAre() {
        for headers in [#""apns-expiration":"0""#, #""apns-priority":"5""#, #""apns-expiration":"""#] {
            #expect(APNSExpiration.rebased(body(headers), by: 40) == body(headers))
        }
        let header = body(#""apns-expiration":"1764100000""#)
        #expect(APNSExpiration.rebased(header, by: 0) == header)
    }
}

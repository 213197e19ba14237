import HeraldHTTP
import Testing
@testable import HeraldWeb

@Suite struct BearerTokenTests {
    func token(_ authorization: String?) -> String? {
        HTTPRequestBuilder.make(headers: HTTPHeadersBuilder.make(authorization.map { [("Authorization", $0)] } ?? [])).bearerToken
    }

    @Test func theSchemeIsReadWithoutCaseAndAnotherSchemeMatchesNoKey() {
        #expect(token("Bearer hk_abc") == "hk_abc")
        #expect(token("bEaReR   hk_abc ") == "hk_abc")
        #expect(token("  BEARER hk_abc") == "hk_abc")
        #expect(token(nil) == nil)
        #expect(token("Basic aGk6dGhlcmU=") == "")
        #expect(token("Bearerx hk_abc") == "")
        #expect(token("Bearer") == "")
    }
}

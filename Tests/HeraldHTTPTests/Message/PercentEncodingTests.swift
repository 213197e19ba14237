import HeraldHTTP
import Testing

@Suite struct PercentEncodingTests {
    @Test func unreservedStaysEverythingElseIsEncodedByteByByte() {
        #expect(PercentEncoding.encode("Az09-._~") == "Az09-._~")
        #expect(PercentEncoding.encode("a b&c=d/e?") == "a%20b%26c%3Dd%2Fe%3F")
        #expect(PercentEncoding.encode("/campaigns?q=1", keeping: "/") == "/campaigns%3Fq%3D1")
        // Letters outside ASCII are encoded as their UTF-8 bytes, as URLs require.
        #expect(PercentEncoding.encode("نوروز") == "%D9%86%D9%88%D8%B1%D9%88%D8%B2")
    }

    @Test func optionalWhiteSpaceIsTrimmed() {
        #expect(" \t value \t".trimmingSpaces == "value")
        #expect("   ".trimmingSpaces == "")
    }
}

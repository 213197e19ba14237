import HeraldCrypto
import Testing

@Suite struct Base64URLTests {
    @Test func encodesWithoutPaddingInTheURLAlphabet() {
        // RFC 4648 §10 test vectors, less the padding.
        #expect(Base64URL.encode(Array("".utf8)) == "")
        #expect(Base64URL.encode(Array("f".utf8)) == "Zg")
        #expect(Base64URL.encode(Array("fo".utf8)) == "Zm8")
        #expect(Base64URL.encode(Array("foo".utf8)) == "Zm9v")
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    @Test func decodesWhatItEncodes() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    @Test func refusesForeignCharactersAndImpossibleLengths() {
        #expect(Base64URL.decode("ab+c") == nil)
        #expect(Base64URL.decode("abcde") == nil)
    }
}

import HeraldCrypto
import Testing

@Suite struct SHA256Tests {
    @Test func knownDigests() {
        // FIPS 180-2 examples.
        #expect(SHA256.hex("".utf8) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // A sequence without contiguous storage hashes the same as the array of its bytes.
        #expect(SHA256.hex("abc".utf8.lazy.map { $0 }) == SHA256.hex(Array("abc".utf8)))
        #expect(SHA256.digest([UInt8]()).count == 32)
    }
}

@Suite struct PrimitiveTests {
    @Test func constantTimeComparison() {
        #expect(ConstantTime.equal("abc", "abc"))
        #expect(!ConstantTime.equal("abc", "abd"))
        #expect(!ConstantTime.equal("abc", "abcd"))
        #expect(ConstantTime.equal([UInt8](), [UInt8]()))
    }

    @Test func randomBytesAreFresh() {
        #expect(SecureRandom.bytes(32).count == 32)
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect(SecureRandom.token().utf8.count == 43)
    }

    @Test func pbkdf2MatchesRFC7914() {
        // RFC 7914 §11, PBKDF2-HMAC-SHA256 (P = "passwd", S = "salt", c = 1, dkLen = 64).
        let derived = PBKDF2.sha256(password: "passwd".utf8, salt: Array("salt".utf8), iterations: 1, length: 64)
        #expect(derived.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
            == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
    }
}

@Suite struct HMACSHA256Tests {
    @Test func matchesRFC4231() {
        // RFC 4231 test cases 1, 2 and 6 (a key longer than the block).
        #expect(HMACSHA256.hex(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(HMACSHA256.hex(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let longKey = [UInt8](repeating: 0xaa, count: 131)
        #expect(HMACSHA256.hex(key: longKey, message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}

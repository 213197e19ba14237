import COpenSSL
import HeraldFCM

/// The few cryptographic primitives accounts need, all from libcrypto: random bytes, SHA-256,
/// constant-time comparison and the password KDF.
public enum Secrets {
    /// Cryptographically random bytes (`RAND_bytes`). libcrypto failing to seed is not something
    /// Herald can recover from, and handing out a predictable secret would be worse than stopping.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else {
            preconditionFailure("RAND_bytes failed: the system random generator is unavailable")
        }
        return bytes
    }

    /// A random 256-bit token, base64url without padding (43 characters).
    public static func token() -> String { Base64URL.encode(randomBytes(32)) }

    /// SHA-256 of the UTF-8 text, as 64 lowercase hex digits: how session ids and API keys are stored.
    static func sha256Hex(_ text: String) -> String {
        let input = Array(text.utf8)
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        input.withUnsafeBufferPointer { _ = SHA256($0.baseAddress, $0.count, &digest) }
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in digest {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// Whether two byte strings are equal, in time that depends only on their length (`CRYPTO_memcmp`).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 } }
    }

    /// Whether two tokens (CSRF tokens, for example) are equal, compared in constant time.
    public static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        constantTimeEqual(Array(a.utf8), Array(b.utf8))
    }
}

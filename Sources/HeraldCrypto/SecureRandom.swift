import COpenSSL

/// Cryptographically random bytes (`RAND_bytes`). One policy everywhere: if libcrypto cannot
/// produce them, the process stops with that said. Handing out a predictable session id, API key
/// or salt — or quietly falling back to a weaker generator — would be worse than stopping.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&bytes, Int32(count)) == 1 else {
            fatalError("RAND_bytes failed: the system's random generator is unavailable, so no secret can be made safely")
        }
        return bytes
    }

    /// A random 256-bit token, base64url without padding (43 characters).
    public static func token() -> String { Base64URL.encode(bytes(32)) }
}

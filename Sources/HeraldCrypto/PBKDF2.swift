import COpenSSL

/// PBKDF2-HMAC-SHA256 (libcrypto `PKCS5_PBKDF2_HMAC`), the password KDF.
public enum PBKDF2 {
    /// `length` bytes derived from `password` and `salt` with `iterations` rounds.
    public static func sha256(password: some Collection<UInt8>, salt: [UInt8], iterations: Int, length: Int) -> [UInt8] {
        let secret = Array(password)
        var output = [UInt8](repeating: 0, count: length)
        let status = secret.withUnsafeBufferPointer { secretBuffer in
            secretBuffer.withMemoryRebound(to: CChar.self) { passwordChars in
                PKCS5_PBKDF2_HMAC(passwordChars.baseAddress, Int32(secret.count), salt, Int32(salt.count),
                                  Int32(iterations), EVP_sha256(), Int32(length), &output)
            }
        }
        guard status == 1 else { fatalError("PKCS5_PBKDF2_HMAC failed: libcrypto cannot derive keys") }
        return output
    }
}

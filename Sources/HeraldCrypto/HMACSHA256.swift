import COpenSSL

/// HMAC-SHA256 through libcrypto's one-shot `HMAC`: webhook signatures a receiver checks with
/// the secret it was given.
public enum HMACSHA256 {
    /// The 32-byte code of `message` under `key`.
    public static func code(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var length: UInt32 = 0
        let key = Array(key), message = Array(message)
        key.withUnsafeBytes { key in
            message.withUnsafeBufferPointer { message in
                _ = HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count, &code, &length)
            }
        }
        return code
    }

    /// The code as 64 lowercase hex digits.
    public static func hex(key: some Collection<UInt8>, message: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: code(key: key, message: message).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] }, as: UTF8.self)
    }
}

import COpenSSL

/// SHA-256 through libcrypto: migration checksums, stored session ids and API keys, request
/// fingerprints for idempotency.
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let input = Array(bytes)
        input.withUnsafeBufferPointer { _ = COpenSSL.SHA256($0.baseAddress, $0.count, &digest) }
        return digest
    }

    /// The digest as 64 lowercase hex digits.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest(bytes) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The digest of the UTF-8 text, as hex.
    public static func hex(_ text: String) -> String { hex(text.utf8) }
}

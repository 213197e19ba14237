import COpenSSL

/// SHA-256 through libcrypto: migration checksums, stored session ids and API keys, request
/// fingerprints for idempotency.
public enum SHA256 {
    /// The algorithm, fetched once: OpenSSL 3's one-shot `SHA256()` fetches it on every call,
    /// which cost twice the hash of an API key itself, and every API request hashes one.
    /// Fetched algorithms are immutable and safe to share between threads.
    nonisolated(unsafe) private static let algorithm = EVP_MD_fetch(nil, "SHA256", nil)

    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let hashed: Void? = bytes.withContiguousStorageIfAvailable { hash($0, into: &digest) }
        if hashed == nil { Array(bytes).withUnsafeBufferPointer { hash($0, into: &digest) } }
        return digest
    }

    private static func hash(_ input: UnsafeBufferPointer<UInt8>, into digest: inout [UInt8]) {
        if let algorithm, EVP_Digest(input.baseAddress, input.count, &digest, nil, algorithm, nil) == 1 { return }
        _ = COpenSSL.SHA256(input.baseAddress, input.count, &digest)  // the fetch failed: the slow way
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

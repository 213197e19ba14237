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
        digest.withUnsafeMutableBufferPointer { digest in
            let hashed: Void? = bytes.withContiguousStorageIfAvailable { hash($0, into: digest.baseAddress!) }
            if hashed == nil { Array(bytes).withUnsafeBufferPointer { hash($0, into: digest.baseAddress!) } }
        }
        return digest
    }

    /// Writes the 32-byte digest of `input` to `digest`.
    private static func hash(_ input: UnsafeBufferPointer<UInt8>, into digest: UnsafeMutablePointer<UInt8>) {
        if let algorithm, EVP_Digest(input.baseAddress, input.count, digest, nil, algorithm, nil) == 1 { return }
        _ = COpenSSL.SHA256(input.baseAddress, input.count, digest)  // the fetch failed: the slow way
    }

    /// The digest as 64 lowercase hex digits.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        let hexed: String? = bytes.withContiguousStorageIfAvailable { hex($0) }
        return hexed ?? Array(bytes).withUnsafeBufferPointer { hex($0) }
    }

    /// Hashed into a stack buffer and written straight into the string's storage: through a
    /// digest array, a text array and a decoded copy it cost 2,500 instructions besides the hash,
    /// and every API request hashes its key.
    private static func hex(_ input: UnsafeBufferPointer<UInt8>) -> String {
        let length = Int(SHA256_DIGEST_LENGTH)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { digest in
            hash(input, into: digest.baseAddress!)
            let digits: StaticString = "0123456789abcdef"
            return String(unsafeUninitializedCapacity: 2 * length) { text in
                for index in 0..<length {
                    text[2 * index] = digits.utf8Start[Int(digest[index] >> 4)]
                    text[2 * index + 1] = digits.utf8Start[Int(digest[index] & 0x0f)]
                }
                return 2 * length
            }
        }
    }

    /// The digest of the UTF-8 text, as hex.
    public static func hex(_ text: String) -> String {
        var text = text
        return text.withUTF8 { hex($0) }
    }
}

import COpenSSL

/// An RSA private key held by libcrypto, for RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256).
///
/// libcrypto's keys are safe to use from several threads for signing (each signature has its own
/// digest context), so the class is `Sendable`; the key never changes after parsing.
public final class RSAPrivateKey: @unchecked Sendable {
    let key: OpaquePointer

    /// Parses a PEM private key (PKCS#8 "BEGIN PRIVATE KEY", as Google writes it, or PKCS#1
    /// "BEGIN RSA PRIVATE KEY"). Fails for text that is not a PEM key or a key that is not RSA.
    public init(pem: String) throws(OpenSSLError) {
        // BIO_new_mem_buf does not copy: the key is read while the bytes are pinned.
        let parsed: OpaquePointer?? = Array(pem.utf8).withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return .none }
            defer { BIO_free(bio) }
            return .some(PEM_read_bio_PrivateKey(bio, nil, nil, nil))
        }
        guard let parsed else { throw OpenSSLError.last("cannot allocate a memory BIO") }
        guard let key = parsed else { throw OpenSSLError.last("not a PEM private key") }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else {
            EVP_PKEY_free(key)
            throw OpenSSLError(reason: "the private key is not an RSA key")
        }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// The RS256 signature of `data`.
    public func signSHA256(_ data: some Collection<UInt8>) throws(OpenSSLError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLError.last("cannot allocate a digest context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw OpenSSLError.last("EVP_DigestSignInit failed")
        }
        let message = Array(data)
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw OpenSSLError.last("EVP_DigestSign (length) failed")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw OpenSSLError.last("EVP_DigestSign failed")
        }
        return Array(signature.prefix(length))
    }

    /// The matching public key as PEM ("BEGIN PUBLIC KEY", SubjectPublicKeyInfo), which a verifier
    /// such as the emulator trusts.
    public func publicKeyPEM() throws(OpenSSLError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError.last("cannot allocate a memory BIO") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PUBKEY(bio, key) == 1 else { throw OpenSSLError.last("PEM_write_bio_PUBKEY failed") }
        return readAll(bio)
    }
}

/// Everything left in a memory BIO, as text.
func readAll(_ bio: OpaquePointer) -> String {
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = BIO_read(bio, &chunk, Int32(chunk.count))
        if count <= 0 { break }
        output.append(contentsOf: chunk[0..<Int(count)])
    }
    return String(decoding: output, as: UTF8.self)
}

/// A libcrypto failure, with the reasons from OpenSSL's error queue.
public struct OpenSSLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String

    public init(reason: String) { self.reason = reason }

    /// An error for `context`, draining OpenSSL's thread-local error queue into the message.
    public static func last(_ context: String) -> OpenSSLError {
        var details: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            details.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return OpenSSLError(reason: details.isEmpty ? context : "\(context): \(details.joined(separator: "; "))")
    }

    public var description: String { reason }
}

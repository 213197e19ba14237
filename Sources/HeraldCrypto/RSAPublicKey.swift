import COpenSSL

/// An RSA public key that checks RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256).
public final class RSAPublicKey: @unchecked Sendable {
    // Immutable after parsing; libcrypto allows concurrent verification with separate contexts.
    private let key: OpaquePointer

    /// Parses a "BEGIN PUBLIC KEY" PEM.
    public init(pem: String) throws(OpenSSLError) {
        // BIO_new_mem_buf does not copy: the key is read while the bytes are pinned.
        let parsed: OpaquePointer?? = Array(pem.utf8).withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return .none }
            defer { BIO_free(bio) }
            return .some(PEM_read_bio_PUBKEY(bio, nil, nil, nil))
        }
        guard let parsed else { throw .last("cannot allocate a memory BIO") }
        guard let key = parsed else { throw .last("not a PEM public key") }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else {
            EVP_PKEY_free(key)
            throw OpenSSLError(reason: "the public key is not an RSA key")
        }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// Whether `signature` is this key's RS256 signature of `data`.
    public func verifySHA256(_ data: some Collection<UInt8>, signature: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            ERR_clear_error()
            return false
        }
        let message = Array(data)
        let valid = EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        ERR_clear_error()  // a bad signature leaves an entry in the thread's error queue
        return valid
    }
}

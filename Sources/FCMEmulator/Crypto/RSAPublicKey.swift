import COpenSSL
import HeraldFCM

/// An RSA public key that checks RS256 signatures (RSASSA-PKCS1-v1_5 with SHA-256).
public final class RSAPublicKey: @unchecked Sendable {
    // Immutable after parsing; libcrypto allows concurrent verification with separate contexts.
    private let key: OpaquePointer

    /// Parses a "BEGIN PUBLIC KEY" PEM.
    public init(pem: String) throws(OpenSSLError) {
        let bytes = Array(pem.utf8)
        guard let bio = bytes.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else {
            throw .last("cannot allocate a memory BIO")
        }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PUBKEY(bio, nil, nil, nil) else { throw .last("not a PEM public key") }
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

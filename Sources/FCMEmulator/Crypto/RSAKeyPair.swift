import HeraldCrypto
import COpenSSL
import HeraldFCM
import HeraldJSON

/// A freshly generated RSA key pair, for tests and for a development setup where the emulator
/// issues its own service-account key. Never a real credential.
public struct RSAKeyPair: Sendable {
    /// PKCS#8 PEM ("BEGIN PRIVATE KEY"), the form Google's key files use.
    public let privateKeyPEM: String
    /// SubjectPublicKeyInfo PEM ("BEGIN PUBLIC KEY").
    public let publicKeyPEM: String

    /// Generates a key pair of `bits` bits with libcrypto.
    public static func generate(bits: Int = 2048) throws(OpenSSLError) -> RSAKeyPair {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else { throw .last("EVP_PKEY_CTX_new_id failed") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1 else {
            throw .last("cannot set up RSA key generation")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen(context, &key) == 1, let key else { throw .last("EVP_PKEY_keygen failed") }
        defer { EVP_PKEY_free(key) }

        guard let bio = BIO_new(BIO_s_mem()) else { throw .last("cannot allocate a memory BIO") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else { throw .last("PEM_write_bio_PrivateKey failed") }
        let privatePEM = drain(bio)
        guard PEM_write_bio_PUBKEY(bio, key) == 1 else { throw .last("PEM_write_bio_PUBKEY failed") }
        return RSAKeyPair(privateKeyPEM: privatePEM, publicKeyPEM: drain(bio))
    }

    /// A service-account key file's JSON for this key pair, in Google's layout.
    public func serviceAccountJSON(projectID: String, clientEmail: String, tokenURI: String, privateKeyID: String = "emulator-key") -> JSON {
        [
            "type": "service_account",
            "project_id": .string(projectID),
            "private_key_id": .string(privateKeyID),
            "private_key": .string(privateKeyPEM),
            "client_email": .string(clientEmail),
            "client_id": "0",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": .string(tokenURI),
        ]
    }
}

/// Everything left in a memory BIO, as text.
func drain(_ bio: OpaquePointer) -> String {
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while case let count = BIO_read(bio, &chunk, Int32(chunk.count)), count > 0 {
        output.append(contentsOf: chunk[0..<Int(count)])
    }
    return String(decoding: output, as: UTF8.self)
}

import COpenSSL
import FCMEmulator
import Foundation

/// A throwaway self-signed certificate for 127.0.0.1 (made at test time, so no key is committed),
/// written as PEM to a temporary file that a client can be told to trust, and an OpenSSL server
/// context that presents it.
public final class SelfSignedCertificate: @unchecked Sendable {
    /// The certificate as PEM, in a file of its own (what HERALD_FCM_CA_FILE names).
    public let pemPath: String
    let serverContext: OpaquePointer

    public init(keys: RSAKeyPair, commonName: String = "127.0.0.1") throws {
        let key = try Self.privateKey(keys.privateKeyPEM)
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw TLSSetupError("X509_new") }
        defer { X509_free(certificate) }
        X509_set_version(certificate, 2)
        ASN1_INTEGER_set(X509_get_serialNumber(certificate), Int.random(in: 1...Int(Int32.max)))
        X509_gmtime_adj(X509_getm_notBefore(certificate), -3600)
        X509_gmtime_adj(X509_getm_notAfter(certificate), 86_400)
        X509_set_pubkey(certificate, key)
        let name = X509_get_subject_name(certificate)
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0)
        X509_set_issuer_name(certificate, name)
        // Clients match the address against subjectAltName, not the common name.
        guard let altName = X509V3_EXT_conf_nid(nil, nil, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost") else {
            throw TLSSetupError("X509V3_EXT_conf_nid")
        }
        X509_add_ext(certificate, altName, -1)
        X509_EXTENSION_free(altName)
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw TLSSetupError("X509_sign") }

        guard let bio = BIO_new(BIO_s_mem()) else { throw TLSSetupError("BIO_new") }
        defer { BIO_free(bio) }
        PEM_write_bio_X509(bio, certificate)
        var bytes = [UInt8](repeating: 0, count: 8192)
        let count = BIO_read(bio, &bytes, Int32(bytes.count))
        guard count > 0 else { throw TLSSetupError("PEM_write_bio_X509") }
        pemPath = NSTemporaryDirectory() + "herald-test-ca-\(UUID().uuidString).pem"
        try Data(bytes[0..<Int(count)]).write(to: URL(fileURLWithPath: pemPath))

        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TLSSetupError("SSL_CTX_new") }
        guard SSL_CTX_use_certificate(context, certificate) == 1, SSL_CTX_use_PrivateKey(context, key) == 1 else {
            SSL_CTX_free(context)
            throw TLSSetupError("SSL_CTX_use_certificate")
        }
        serverContext = context
    }

    deinit {
        SSL_CTX_free(serverContext)
        try? FileManager.default.removeItem(atPath: pemPath)
    }

    private static func privateKey(_ pem: String) throws -> OpaquePointer {
        let bytes = Array(pem.utf8)
        let bio = bytes.withUnsafeBytes { BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { throw TLSSetupError("PEM_read_bio_PrivateKey") }
        return key
    }
}

struct TLSSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ step: String) { description = "\(step) failed while setting up a test TLS server" }
}

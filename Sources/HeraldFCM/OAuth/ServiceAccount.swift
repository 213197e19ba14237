import HeraldCrypto
import HeraldJSON

/// A Google service-account key, the JSON file the Firebase console downloads
/// ("Project settings → Service accounts → Generate new private key").
public struct ServiceAccount: Sendable {
    /// The account's e-mail, the JWT issuer (`iss`).
    public let clientEmail: String
    /// The id of the key, the JWT header's `kid`.
    public let privateKeyID: String
    /// The OAuth token endpoint, the JWT audience (`aud`).
    public let tokenURI: String
    /// The Firebase project the messages are sent for.
    public let projectID: String
    /// The parsed RSA private key. Its PEM text is not kept.
    public let privateKey: RSAPrivateKey

    /// Parses a service-account key file's contents. Errors name the missing or malformed field and
    /// never quote the key.
    public init(json bytes: some Collection<UInt8>) throws(ServiceAccountError) {
        let document: JSON
        do {
            document = try JSON.parse(bytes)
        } catch {
            throw .notJSON(error.description)
        }
        guard let object = document.objectValue else { throw .notJSON("expected an object, found \(document.typeName)") }

        func field(_ name: String) throws(ServiceAccountError) -> String {
            guard let value = object[name] else { throw .missingField(name) }
            guard let text = value.stringValue, !text.isEmpty else {
                throw .invalidField(name, "expected a non-empty string, found \(value.typeName)")
            }
            return text
        }
        if let type = object["type"]?.stringValue, type != "service_account" {
            throw .invalidField("type", "expected \"service_account\", found \"\(type)\"")
        }
        clientEmail = try field("client_email")
        privateKeyID = try field("private_key_id")
        tokenURI = try field("token_uri")
        projectID = try field("project_id")
        let pem = try field("private_key")
        do {
            privateKey = try RSAPrivateKey(pem: pem)
        } catch {
            throw .invalidField("private_key", error.description)
        }
    }

    /// Reads and parses a service-account key file.
    public init(contentsOfFile path: String) throws(ServiceAccountError) {
        guard let bytes = readWholeFile(path) else { throw .unreadable(path) }
        try self.init(json: bytes)
    }
}

/// Why a service-account key could not be used.
public enum ServiceAccountError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(String)
    case notJSON(String)
    case missingField(String)
    case invalidField(String, String)

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read the service-account key file \(path)"
        case .notJSON(let reason): "the service-account key is not valid JSON: \(reason)"
        case .missingField(let name): "the service-account key has no \"\(name)\" field"
        case .invalidField(let name, let reason): "the service-account key's \"\(name)\" is invalid: \(reason)"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The whole contents of a file, or nil if it cannot be opened or read.
func readWholeFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count > 0 { bytes.append(contentsOf: chunk[0..<count]) }
        if count < chunk.count { break }
    }
    return ferror(file) == 0 ? bytes : nil
}

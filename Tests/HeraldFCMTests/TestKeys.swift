import FCMEmulator
import HeraldFCM
import HeraldJSON

/// Throwaway keys generated at test time (RSA generation is slow, so once per test process).
enum TestKeys {
    static let primary: RSAKeyPair = generate()
    static let other: RSAKeyPair = generate()

    private static func generate() -> RSAKeyPair {
        do {
            return try RSAKeyPair.generate(bits: 2048)
        } catch {
            fatalError("cannot generate a test RSA key: \(error)")
        }
    }

    /// A service account for `keys`, whose token endpoint is `tokenURI`.
    static func serviceAccount(_ keys: RSAKeyPair = primary, projectID: String = "herald-test", tokenURI: String = "http://127.0.0.1:9/token") throws -> ServiceAccount {
        let json = keys.serviceAccountJSON(projectID: projectID, clientEmail: "sender@herald-test.iam.gserviceaccount.com", tokenURI: tokenURI)
        return try ServiceAccount(json: json.serialized())
    }
}

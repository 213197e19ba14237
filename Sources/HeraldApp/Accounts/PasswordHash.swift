import HeraldCrypto

/// Password hashing with PBKDF2-HMAC-SHA256 (libcrypto `PKCS5_PBKDF2_HMAC`), stored as a
/// self-describing string `pbkdf2-sha256$<iterations>$<salt>$<hash>` (base64url), so the cost can
/// be raised later without breaking stored hashes.
enum PasswordHash {
    /// OWASP's 2023 figure for PBKDF2-HMAC-SHA256.
    static let defaultIterations = 600_000
    static let algorithm = "pbkdf2-sha256"
    static let saltBytes = 16
    static let hashBytes = 32

    /// Hashes `password` with a fresh random salt.
    static func make(_ password: String, iterations: Int = defaultIterations) -> String {
        let salt = SecureRandom.bytes(saltBytes)
        let hash = derive(password, salt: salt, iterations: iterations)
        return "\(algorithm)$\(iterations)$\(Base64URL.encode(salt))$\(Base64URL.encode(hash))"
    }

    /// Whether `password` matches `stored`; an unreadable stored string never matches.
    static func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == algorithm, let iterations = Int(parts[1]), iterations >= 1,
              let salt = Base64URL.decode(String(parts[2])), let expected = Base64URL.decode(String(parts[3])),
              expected.count == hashBytes else { return false }
        return ConstantTime.equal(derive(password, salt: salt, iterations: iterations), expected)
    }

    /// A hash to check against when the account does not exist, so that an unknown e-mail costs
    /// the same time as a wrong password and does not reveal which accounts exist.
    static let decoy = make(Base64URL.encode(SecureRandom.bytes(16)))

    static func derive(_ password: String, salt: [UInt8], iterations: Int) -> [UInt8] {
        PBKDF2.sha256(password: password.utf8, salt: salt, iterations: iterations, length: hashBytes)
    }
}

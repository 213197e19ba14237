import HeraldFCM

#if canImport(Glibc)
import Glibc
#endif

extension FCMEmulatorConfiguration {
    /// For a developer without a real key (`herald fcm-emulator` on a fresh machine): generates a
    /// throwaway RSA key pair, writes a service-account key file for it at `path` (mode 0600, with
    /// `token_uri` set to `tokenURI`, the emulator's own `/token`), and returns a configuration
    /// that trusts exactly that key. Herald then reads the file like a real key. `keys`: a pair
    /// generated before (tests start many emulators, and a key costs a fifth of a second of CPU).
    public static func development(projectID: String, tokenURI: String, writingKeyFileTo path: String,
                                   keys: RSAKeyPair? = nil) throws -> FCMEmulatorConfiguration {
        let keys = try keys ?? RSAKeyPair.generate()
        let clientEmail = "herald-dev@\(projectID).iam.gserviceaccount.com"
        let file = keys.serviceAccountJSON(projectID: projectID, clientEmail: clientEmail, tokenURI: tokenURI).prettyString() + "\n"
        try writePrivateFile(path, Array(file.utf8))
        return FCMEmulatorConfiguration(projectID: projectID, trustedPublicKeyPEM: keys.publicKeyPEM, trustedClientEmail: clientEmail)
    }
}

/// A file could not be written.
public struct FileWriteError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let errno: Int32
    public var description: String { "cannot write \(path): \(String(cString: strerror(errno)))" }
}

/// Writes `bytes` to `path`, readable by its owner only (a key file).
func writePrivateFile(_ path: String, _ bytes: [UInt8]) throws(FileWriteError) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw FileWriteError(path: path, errno: errno) }
    defer { close(descriptor) }
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw FileWriteError(path: path, errno: errno)
        }
        written += count
    }
}

/// A PEM file of CA certificates that TLS peers are checked against instead of the system's store.
///
/// libcurl only reads the file on the first TLS handshake and then fails every request with
/// "error setting certificate file"; checking at start-up names the problem once, before sending.
public enum CAFile {
    /// Throws unless `path` can be read and holds at least one PEM certificate.
    public static func check(_ path: String) throws(CAFileError) {
        guard let bytes = readWholeFile(path) else { throw .unreadable(path) }
        let marker = Array("-----BEGIN CERTIFICATE-----".utf8)
        guard bytes.count >= marker.count,
              (0...(bytes.count - marker.count)).contains(where: { bytes[$0..<($0 + marker.count)].elementsEqual(marker) })
        else { throw .noCertificate(path) }
    }
}

/// Why a CA file cannot be used.
public enum CAFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(String)
    case noCertificate(String)

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read the CA file \(path)"
        case .noCertificate(let path): "the CA file \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
        }
    }
}

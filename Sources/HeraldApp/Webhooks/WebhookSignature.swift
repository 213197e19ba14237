import HeraldCrypto

/// How a receiver knows a webhook came from this Herald and was not replayed: the header
/// `Herald-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the secret>`.
/// The receiver recomputes the code over the raw body it got, compares in constant time, and
/// refuses a `t` more than `replayWindowSeconds` from its own clock (a retry is signed anew).
enum WebhookSignature {
    static let headerName = "Herald-Signature"
    static let replayWindowSeconds = 300

    static func header(secret: String, timestamp: Int, body: some Collection<UInt8>) -> String {
        "t=\(timestamp),v1=\(code(secret: secret, timestamp: timestamp, body: body))"
    }

    /// Whether `header` signs `body` under `secret` within the replay window of `now`.
    static func verify(header: String, secret: String, body: some Collection<UInt8>, now: Int,
                              tolerance: Int = replayWindowSeconds) -> Bool {
        var timestamp: Int?
        var codes: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int(pair[1]) } else if pair[0] == "v1" { codes.append(String(pair[1])) }
        }
        guard let timestamp, abs(now - timestamp) <= tolerance else { return false }
        let expected = code(secret: secret, timestamp: timestamp, body: body)
        return codes.contains { ConstantTime.equal($0, expected) }
    }

    private static func code(secret: String, timestamp: Int, body: some Collection<UInt8>) -> String {
        HMACSHA256.hex(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + Array(body))
    }
}

import HeraldCrypto

/// How a receiver knows a webhook came from this Herald, as this delivery, and was not replayed:
/// the header `Herald-Signature: t=<unix seconds>,v2=<hex>`, the hex being HMAC-SHA256 under the
/// secret of `"<delivery id>.<t>.<body>"`. The delivery id (`Herald-Webhook-Id`, which receivers
/// de-duplicate on) and the time are signed with the body, so neither can be swapped on a captured
/// post. The receiver recomputes the code over the raw body it got, compares in constant time,
/// and refuses a `t` more than `replayWindowSeconds` from its own clock (a retry is signed anew).
/// `v2` because `v1` signed only `"<t>.<body>"`. This release still sends `v1` beside `v2`, so that
/// receivers written for the release before keep working while they move to `v2`; the next
/// release drops it (the upgrade notes say so).
enum WebhookSignature {
    static let headerName = "Herald-Signature"
    static let replayWindowSeconds = 300
    static let scheme = "v2"

    static func header(secret: String, deliveryID: String, timestamp: Int, body: some Collection<UInt8>) -> String {
        let previous = HMACSHA256.hex(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + Array(body))
        return "t=\(timestamp),v1=\(previous),\(scheme)=\(code(secret: secret, deliveryID: deliveryID, timestamp: timestamp, body: body))"
    }

    /// Whether `header` signs `body` as delivery `deliveryID` under `secret` within the replay window of `now`.
    static func verify(header: String, secret: String, deliveryID: String, body: some Collection<UInt8>, now: Int,
                       tolerance: Int = replayWindowSeconds) -> Bool {
        var timestamp: Int?
        var codes: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int(pair[1]) } else if pair[0] == scheme { codes.append(String(pair[1])) }
        }
        guard let timestamp, abs(now - timestamp) <= tolerance else { return false }
        let expected = code(secret: secret, deliveryID: deliveryID, timestamp: timestamp, body: body)
        return codes.contains { ConstantTime.equal($0, expected) }
    }

    private static func code(secret: String, deliveryID: String, timestamp: Int, body: some Collection<UInt8>) -> String {
        HMACSHA256.hex(key: Array(secret.utf8), message: Array("\(deliveryID).\(timestamp).".utf8) + Array(body))
    }
}

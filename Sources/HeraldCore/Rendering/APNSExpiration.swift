/// APNs reads `apns-expiration` as an instant, while `android.ttl` and webpush's `TTL` count from
/// the send. A message rendered when its run was planned and sent later (a wave, a spread, a
/// retry, a quota wait) would lose that wait from its iOS lifetime only: before it is sent, its
/// instant moves on by the time it waited. Pure: bytes of the request body in, bytes out.
public enum APNSExpiration {
    static let key = Array(#""apns-expiration":""#.utf8)

    /// `body` with its `apns-expiration` (an epoch in seconds) moved `seconds` later; "0" (do not
    /// store at all) and a body without one are returned as they are.
    public static func rebased(_ body: [UInt8], by seconds: Int64) -> [UInt8] {
        guard seconds > 0, let start = firstIndex(of: key, in: body) else { return body }
        let digits = start + key.count
        var end = digits
        var value: Int64 = 0
        while end < body.count, body[end] >= UInt8(ascii: "0"), body[end] <= UInt8(ascii: "9"), end - digits < 18 {
            value = value * 10 + Int64(body[end] - UInt8(ascii: "0"))
            end += 1
        }
        guard end > digits, end < body.count, body[end] == UInt8(ascii: "\""), value != 0 else { return body }
        return Array(body[..<digits]) + Array(String(value + seconds).utf8) + Array(body[end...])
    }

    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}


/// APNs reads `apns-expiration` as an instant, while `android.ttl` and webpush's `TTL` count from
/// the send. A message rendered when its run was planned and sent later (a wave, a spread, a
/// retry, a quota wait) would lose that wait from its iOS lifetime only: before it is sent, its
/// instant moves on by the time it waited. A Live Activity's `aps.timestamp` moves with it: APNs
/// orders an activity's updates by it, so it says when the update was sent, not planned.
/// Pure: bytes of the request body in, bytes out.
public enum APNSExpiration {
    static let key = Array(#""apns-expiration":""#.utf8)
    /// As `LiveActivity.aps` writes it: the first member of `aps`.
    static let timestampKey = Array(#""aps":{"timestamp":"#.utf8)

    /// `body` with its `apns-expiration` (an epoch in seconds) and its Live Activity `timestamp`
    /// moved `seconds` later; "0" (do not store at all) and a body without them are returned as they are.
    public static func rebased(_ body: [UInt8], by seconds: Int64) -> [UInt8] {
        guard seconds > 0 else { return body }
        return moved(moved(body, after: key, closing: UInt8(ascii: "\""), by: seconds), after: timestampKey, closing: nil, by: seconds)
    }

    /// `body` with the epoch after `key` moved `seconds` on: digits ended by `closing` (a quote),
    /// or by the end of a JSON number when nil.
    static func moved(_ body: [UInt8], after key: [UInt8], closing: UInt8?, by seconds: Int64) -> [UInt8] {
        guard let start = firstIndex(of: key, in: body) else { return body }
        let digits = start + key.count
        var end = digits
        var value: Int64 = 0
        while end < body.count, body[end] >= UInt8(ascii: "0"), body[end] <= UInt8(ascii: "9"), end - digits < 18 {
            value = value * 10 + Int64(body[end] - UInt8(ascii: "0"))
            end += 1
        }
        let closed = end < body.count && (closing.map { body[end] == $0 } ?? (body[end] == UInt8(ascii: ",") || body[end] == UInt8(ascii: "}")))
        guard end > digits, closed, value != 0 else { return body }
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

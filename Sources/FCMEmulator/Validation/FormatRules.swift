import FCMMessage

/// The value formats FCM checks, each answering nil or the reason a value is refused.
enum FormatRules {
    /// Topic names: `[a-zA-Z0-9-_.~%]+` (the Admin SDKs' pattern).
    static func isTopicName(_ name: Substring) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "%"): true
            default: false
            }
        }
    }

    static let analyticsLabel: @Sendable (String) -> String? = { label in
        label.utf8.count <= 50 && isTopicName(Substring(label)) ? nil : "analytics_label must match ^[a-zA-Z0-9-_.~%]{1,50}$"
    }

    /// A protobuf Duration in JSON: seconds with up to nine fractional digits and an "s".
    static func duration(max: Int) -> @Sendable (String) -> String? {
        { text in
            guard let seconds = parseDuration(text) else {
                return "Illegal duration format; duration must be a number of seconds ending with 's', like \"3.5s\""
            }
            return seconds <= Double(max) ? nil : "duration must be at most \(max)s"
        }
    }

    /// Seconds with up to nine decimals and an "s" ("3.5s"). Read as bytes: it runs for every
    /// message with a TTL, and splitting it as characters cost more than the rest of its check.
    static func parseDuration(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.last == UInt8(ascii: "s") else { return nil }
        let number = bytes.dropLast()
        let dot = number.firstIndex(of: UInt8(ascii: "."))
        let whole = number[..<(dot ?? number.endIndex)]
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard !whole.isEmpty, whole.allSatisfy(digits.contains) else { return nil }
        if let dot {
            let fraction = number[(dot + 1)...]
            guard (1...9).contains(fraction.count), fraction.allSatisfy(digits.contains) else { return nil }
        }
        return Double(String(decoding: number, as: UTF8.self))
    }

    /// `#rrggbb` (or `#rrggbbaa`, which FCM also takes).
    static let color: @Sendable (String) -> String? = { text in
        let hex = text.dropFirst()
        return text.first == "#" && (hex.count == 6 || hex.count == 8) && hex.allSatisfy(\.isHexDigit)
            ? nil : "color must be in the form #rrggbb"
    }

    /// An RFC 3339 UTC timestamp: "2014-10-02T15:01:23Z" with up to nine fractional digits.
    static let timestamp: @Sendable (String) -> String? = { text in
        let bytes = Array(text.utf8)
        let digitsAt = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        let shaped = bytes.count >= 20 && bytes.last == UInt8(ascii: "Z")
            && digitsAt.allSatisfy { bytes[$0] >= 48 && bytes[$0] <= 57 }
            && bytes[4] == UInt8(ascii: "-") && bytes[7] == UInt8(ascii: "-") && bytes[10] == UInt8(ascii: "T")
            && bytes[13] == UInt8(ascii: ":") && bytes[16] == UInt8(ascii: ":")
        let fraction = bytes.dropFirst(19).dropLast()
        let fractionOK = fraction.isEmpty
            || (fraction.first == UInt8(ascii: ".") && (2...10).contains(fraction.count) && fraction.dropFirst().allSatisfy { $0 >= 48 && $0 <= 57 })
        return shaped && fractionOK ? nil : "timestamp must be RFC 3339 in UTC, like \"2014-10-02T15:01:23.045Z\""
    }

    static func oneOf(_ values: [String]) -> @Sendable (String) -> String? {
        { values.contains($0) ? nil : "must be one of \(values.joined(separator: ", "))" }
    }

    static let httpsURL: @Sendable (String) -> String? = { text in
        text.lowercased().hasPrefix("https://") && text.count > 8 ? nil : "link must be an https URL"
    }

    /// Data keys FCM reserves (seed 002): `from`, `message_type`, and prefixes `google.`, `gcm.`.
    static let dataEntry: @Sendable (String, String) -> String? = { key, _ in
        let lower = key.lowercased()
        if lower == "from" || lower == "message_type" || lower.hasPrefix("google.") || lower.hasPrefix("gcm.") {
            return "data key \"\(key)\" is reserved"
        }
        return key.isEmpty ? "data keys must not be empty" : nil
    }

    static let apnsHeader: @Sendable (String, String) -> String? = { name, value in
        switch name.lowercased() {
        case "apns-priority": ["1", "5", "10"].contains(value) ? nil : "apns-priority must be \"10\", \"5\" or \"1\""
        case "apns-expiration": !value.isEmpty && value.allSatisfy(\.isASCIIDigit) ? nil : "apns-expiration must be epoch seconds"
        case "apns-push-type":
            APNSConfig.pushTypes.contains(value)
                ? nil : "apns-push-type \"\(value)\" is not an APNs push type"
        default: nil
        }
    }

    static let webpushHeader: @Sendable (String, String) -> String? = { name, value in
        switch name.lowercased() {
        case "ttl": !value.isEmpty && value.allSatisfy(\.isASCIIDigit) ? nil : "the TTL header must be a number of seconds"
        case "urgency": ["very-low", "low", "normal", "high"].contains(value) ? nil : "Urgency must be very-low, low, normal or high"
        default: nil
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

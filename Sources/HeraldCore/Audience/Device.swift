import FCMMessage
import Foundation
import HeraldJSON

/// The platforms FCM delivers to.
public enum DevicePlatform: String, Sendable, CaseIterable {
    case android, ios, web
}

/// How FCM names a device: by its registration token (which Google has deprecated) or by its
/// Firebase installation ID, the `fid` target of a v1 message.
public enum DeviceKind: String, Sendable, CaseIterable {
    case token, fid
}

/// One app install Herald knows, by the identifier FCM addresses it by (its registration token,
/// or its installation ID when `kind` is `.fid`): what segments filter on and what personalised
/// messages read.
public struct Device: Sendable, Equatable {
    /// The registration token, or the installation ID of a device of kind `.fid`.
    public var token: String
    public var kind: DeviceKind
    public var platform: DevicePlatform
    public var appID: String?
    public var appVersion: String?
    /// A BCP 47 tag, normalised ("fa-IR", "zh-Hant-TW").
    public var language: String?
    /// An ISO 3166-1 alpha-2 code, upper case.
    public var country: String?
    /// An IANA time zone.
    public var timeZone: String?
    /// Free-form attributes (`first_name`, `city`), sorted by key.
    public var properties: [String: String]
    /// When the app last saw the device; nil means now, at registration.
    public var lastSeen: Date?
    /// What the device's A/B bucket is hashed from when it is not `token`: the token a device was
    /// registered by before it moved to its FID, so that a move never changes the variants it gets.
    /// Kept by the registry, never read from a document.
    public var bucketKey: String?
    /// The campaign categories its owner switched off ("promotions"), sorted: no campaign of
    /// them reaches it.
    public var quietCategories: [String]
    /// The push token of the app's Live Activity on an iOS device (hex, lower case): what a Live
    /// Activity campaign updates or ends. Nil: the device has no activity to update.
    public var liveActivityToken: String?

    public init(token: String, kind: DeviceKind = .token, platform: DevicePlatform, appID: String? = nil, appVersion: String? = nil, language: String? = nil,
                country: String? = nil, timeZone: String? = nil, properties: [String: String] = [:], lastSeen: Date? = nil,
                bucketKey: String? = nil, quietCategories: [String] = [], liveActivityToken: String? = nil) {
        self.token = token
        self.kind = kind
        self.platform = platform
        self.appID = appID
        self.appVersion = appVersion
        self.language = language
        self.country = country
        self.timeZone = timeZone
        self.properties = properties
        self.lastSeen = lastSeen
        self.bucketKey = bucketKey
        self.quietCategories = quietCategories
        self.liveActivityToken = liveActivityToken
    }

    /// The v1 target that reaches this device: `token`, or `fid` for an installation ID.
    public var target: Message.Target {
        switch kind {
        case .token: .token(token)
        case .fid: .fid(token)
        }
    }

    /// What is wrong with `identifier`'s shape for a device of `kind`, as a field error under `path`.
    public static func identifierProblem(_ identifier: String, kind: DeviceKind, at path: String) -> FieldError? {
        switch kind {
        case .token:
            RegistrationToken.problem(identifier).map {
                FieldError(path: path, code: "invalid_token", message: "the registration token \($0); it is one piece of letters, digits, -, _ and : only")
            }
        case .fid:
            InstallationID.problem(identifier).map {
                FieldError(path: path, code: "invalid_fid", message: "the installation ID (kind fid) \($0); \(InstallationID.rule)")
            }
        }
    }

    /// The fields of a device document; `token` comes from the URL when registering one.
    static let fields: Set<String> = ["token", "kind", "platform", "app_id", "app_version", "language", "country", "time_zone", "properties", "last_seen_at",
                                           "quiet_categories", "live_activity_token"]

    /// Reads and validates a device document (`PUT /api/v1/devices/{token}`, a line of NDJSON, a
    /// row of CSV turned into an object), every problem at once. `kind` (`token`, the default, or
    /// `fid`) says what the identifier is, and so which shape it must have. `token` given outside the document
    /// (the URL's) wins over one inside it; `ignoring` names server fields to skip.
    public static func parse(_ json: JSON, token: String? = nil, ignoring: Set<String> = []) -> Result<Device, ValidationErrors> {
        var reader = JSONReader()
        guard let object = reader.object(json, at: "") else { return .failure(ValidationErrors(errors: reader.issues)) }
        reader.rejectUnknown(object, known: fields.union(ignoring), at: "")
        // PostgreSQL text cannot hold U+0000: refused here, so that an import says so by line as the API does.
        if let path = json.pathOfNUL() { reader.append([.nulCharacter(at: path)]) }
        // The URL's token names the device; one in the body must be the same (a device read and sent back).
        if let token, let inBody = reader.string(object, "token", at: ""), inBody != token {
            reader.report("token", "conflict", "the token in the body differs from the one in the URL")
        }
        let token = token ?? reader.string(object, "token", at: "", required: true) ?? ""
        var kind = DeviceKind.token
        if let text = reader.string(object, "kind", at: "") {
            if let known = DeviceKind(rawValue: text.lowercased()) {
                kind = known
            } else {
                reader.report("kind", "invalid_value", "the kind is token (a registration token) or fid (a Firebase installation ID), found \"\(text)\"")
            }
        }
        if let problem = identifierProblem(token, kind: kind, at: "token") { reader.append([problem]) }
        var platform = DevicePlatform.android
        if let text = reader.string(object, "platform", at: "", required: true) {
            if let known = DevicePlatform(rawValue: text.lowercased()) {
                platform = known
            } else {
                reader.report("platform", "invalid_value", "the platform is android, ios or web, found \"\(text)\"")
            }
        }
        // Lengths count code points, as the OpenAPI document's maxLength does (JSON Schema):
        // "मनीष" is four, though a reader sees three letters (schemathesis found the difference).
        func text(_ key: String, limit: Int) -> String? {
            guard let value = reader.string(object, key, at: ""), !value.isEmpty else { return nil }
            if value.unicodeScalars.count > limit {
                reader.report(key, "too_long", "at most \(limit) characters, found \(value.unicodeScalars.count)", limit: limit)
            }
            return value
        }
        let appID = text("app_id", limit: DeviceLimits.textCharacters)
        let appVersion = text("app_version", limit: DeviceLimits.versionCharacters)
        if let appVersion, let problem = AppVersion.problem(appVersion) {
            reader.report("app_version", "invalid_value", problem)
        }
        var language = text("language", limit: DeviceLimits.languageCharacters)
        if let tag = language {
            language = LanguageTag.normalized(tag)
            if language == nil {
                reader.report("language", "invalid_value", "a language is a BCP 47 tag such as fa, fa-IR or zh-Hant-TW, found \"\(tag)\"")
            }
        }
        var country = text("country", limit: 2)
        if let code = country {
            country = code.uppercased()
            if !CountryCode.isKnown(code.uppercased()) {
                reader.report("country", "unknown_country", "a country is an ISO 3166 two-letter code such as IR or DE, found \"\(code)\"")
            }
        }
        let timeZone = text("time_zone", limit: DeviceLimits.textCharacters)
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            reader.report("time_zone", "invalid_time_zone", "unknown IANA time zone \"\(timeZone)\"")
        }
        var properties: [String: String] = [:]
        if let pairs = reader.stringMap(object, "properties", at: "") {
            if pairs.count > DeviceLimits.properties {
                reader.report("properties", "too_many", "at most \(DeviceLimits.properties) properties, found \(pairs.count)",
                              limit: DeviceLimits.properties)
            }
            for (key, value) in pairs {
                let path = JSONReader.path("properties", key)
                if !DeviceLimits.isPropertyName(key) {
                    reader.report(path, "invalid_key",
                                  "a property name has 1 to \(DeviceLimits.propertyNameCharacters) letters, digits and _, starting with a letter, found \"\(key)\"",
                                  limit: DeviceLimits.propertyNameCharacters)
                } else if value.unicodeScalars.count > DeviceLimits.propertyValueCharacters {
                    reader.report(path, "too_long", "property values have at most \(DeviceLimits.propertyValueCharacters) characters, found \(value.unicodeScalars.count)",
                                  limit: DeviceLimits.propertyValueCharacters)
                }
                properties[key] = value
            }
        }
        var lastSeen: Date?
        if let stamp = reader.string(object, "last_seen_at", at: "") {
            if RFC3339.isStorable(stamp), let seconds = RFC3339.secondsSince1970(stamp) {
                lastSeen = Date(timeIntervalSince1970: seconds)
            } else {
                reader.report("last_seen_at", "invalid_value", "a time is RFC 3339, such as 2026-11-23T09:30:00Z, found \"\(stamp)\"")
            }
        }
        let quiet = quietCategories(object, reader: &reader)
        let activity = text("live_activity_token", limit: DeviceLimits.liveActivityTokenCharacters)
        if let activity, let problem = LiveActivity.tokenProblem(activity, platform: platform) {
            reader.report("live_activity_token", "invalid_value", problem)
        }
        guard reader.issues.isEmpty else { return .failure(ValidationErrors(errors: reader.issues)) }
        return .success(Device(token: token, kind: kind, platform: platform, appID: appID, appVersion: appVersion, language: language,
                               country: country, timeZone: timeZone, properties: properties, lastSeen: lastSeen, quietCategories: quiet,
                               liveActivityToken: activity?.lowercased()))
    }

    /// `quiet_categories`: a list of categories (a CSV cell's is split before), sorted, each once.
    static func quietCategories(_ object: JSONObject, reader: inout JSONReader) -> [String] {
        let names = reader.strings(object, "quiet_categories", at: "") ?? []
        if names.count > DeviceLimits.quietCategories {
            reader.report("quiet_categories", "too_many", "at most \(DeviceLimits.quietCategories) categories, found \(names.count)",
                          limit: DeviceLimits.quietCategories)
        }
        for (index, name) in names.enumerated() {
            if let problem = CampaignCategory.problem(name) { reader.report(JSONReader.path("quiet_categories", index: index), "invalid_value", problem) }
        }
        return Array(Set(names)).sorted()
    }

    /// The value a personalisation variable or a segment condition reads: an attribute by its
    /// name, or a property (`city`, or `properties.city`).
    public func value(of name: String) -> String? {
        switch name {
        case "token": token
        case "platform": platform.rawValue
        case "app_id": appID
        case "app_version": appVersion
        case "language": language
        case "country": country
        case "time_zone": timeZone
        default: properties[name.hasPrefix("properties.") ? String(name.dropFirst("properties.".count)) : name]
        }
    }

    /// The attributes a device has besides its properties, by the names variables and segments use.
    public static let attributes: Set<String> = ["token", "platform", "app_id", "app_version", "language", "country", "time_zone"]

    /// `devices` with each token once, as its last occurrence left it (rows applied in order), in
    /// the order of those last occurrences.
    public static func lastOfEachToken(_ devices: [Device]) -> [Device] {
        var seen = Set<String>()
        return devices.reversed().filter { seen.insert($0.token).inserted }.reversed()
    }
}

/// The bounds of a device document.
public enum DeviceLimits {
    public static let properties = 50
    public static let propertyNameCharacters = 64
    public static let propertyValueCharacters = 500
    public static let textCharacters = 200
    public static let versionCharacters = 50
    public static let languageCharacters = 35
    public static let quietCategories = 50
    /// Hex digits of a Live Activity push token: Apple's tokens are 32 bytes (64 digits) today,
    /// and Apple says not to count on their length; 100 bytes leaves room.
    public static let liveActivityTokenCharacters = 200
    public static let liveActivityTokenMinimumCharacters = 32

    /// `first_name`, `city`, `plan2`: a letter, then letters, digits and `_`.
    public static func isPropertyName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, (1...propertyNameCharacters).contains(name.unicodeScalars.count) else { return false }
        func letter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        return letter(first) && name.unicodeScalars.allSatisfy { letter($0) || ("0"..."9").contains($0) || $0 == "_" }
    }
}

/// BCP 47 language tags in their usual case: language lower ("fa"), script title ("Hant"),
/// region upper ("IR"), the rest lower.
public enum LanguageTag {
    /// The tag in its usual case ("fa-IR", "zh-Hant-TW"), with `_` read as `-`; nil when it is
    /// not shaped like a BCP 47 tag. Works on the bytes: it runs for every imported device, and
    /// Character properties and Foundation's replacing cost a fifth of an import.
    /// The tags `normalized` reads, as a JSON Schema pattern: a language of 2 or 3 letters, then
    /// subtags of 1 to 8 letters and digits, after - or _.
    public static let pattern = "^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$"

    public static func normalized(_ tag: String) -> String? {
        let bytes = Array(tag.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "_") {
            guard append(bytes[start..<index], first: start == 0, to: &result) else { return nil }
            start = index + 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// One subtag: the language (2 or 3 letters, lower case), a script (4 letters, title case), a
    /// region (2 letters, upper case) or another (1 to 8 letters and digits, lower case).
    private static func append(_ part: ArraySlice<UInt8>, first: Bool, to result: inout [UInt8]) -> Bool {
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }
        func upper(_ byte: UInt8) -> UInt8 { (0x61...0x7A).contains(byte) ? byte - 0x20 : byte }
        let letters = part.allSatisfy(isLetter)
        if first {
            guard (2...3).contains(part.count), letters else { return false }
            result.append(contentsOf: part.map(lower))
            return true
        }
        guard (1...8).contains(part.count), part.allSatisfy({ isLetter($0) || (0x30...0x39).contains($0) }) else { return false }
        result.append(UInt8(ascii: "-"))
        if part.count == 4 && letters {
            result.append(upper(part[part.startIndex]))
            result.append(contentsOf: part.dropFirst().map(lower))
        } else if part.count == 2 && letters {
            result.append(contentsOf: part.map(upper))
        } else {
            result.append(contentsOf: part.map(lower))
        }
        return true
    }

    /// The primary language of a tag ("fa" of "fa-IR").
    public static func primary(_ tag: String) -> String {
        String(tag.split(separator: "-").first ?? "").lowercased()
    }
}

/// ISO 3166-1 alpha-2 codes as Foundation knows them.
public enum CountryCode {
    static let known: Set<String> = Set(Locale.Region.isoRegions.map(\.identifier).filter { $0.count == 2 })

    public static func isKnown(_ code: String) -> Bool { known.contains(code) }
}


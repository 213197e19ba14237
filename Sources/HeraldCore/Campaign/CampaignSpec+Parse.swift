import FCMMessage
import HeraldJSON

extension CampaignSpec {
    /// Reads and validates a campaign from its JSON form, reporting every failure at once.
    ///
    /// The contract (unknown members are `unknown_field` errors; `null` equals absent; strings are
    /// counted in characters as a person counts them; "" in an optional text field means unset):
    ///
    /// | field | type | rule |
    /// | --- | --- | --- |
    /// | `name` | string | required, 1…200 characters |
    /// | `notification` | object | `title`, `body` (strings), `image` (https URL, ≤ 1000); required unless every variant has its own text or data |
    /// | `topics` | [string] | 1…50 topic names `^[a-zA-Z0-9-_.~%]+$` (≤ 256 each, `/topics/` prefix stripped, no duplicates) |
    /// | `condition` | string | FCM condition: `'t' in topics`, `&&`, `||`, `!`, `( )`; ≤ 5 topic mentions (≤ 4 with variants or a holdout), ≤ 1000 characters |
    /// | `segment` | string | a saved segment's id (UUID): its active devices, one request each |
    /// | `tokens` | [string] | 1…200 registration tokens, one request each. Exactly one of `topics`/`condition`/`segment`/`tokens` |
    /// | `data` | {string: string} | keys 1…100 characters, not `from`, `message_type`, `google.*`, `gcm.*` |
    /// | `options` | object | see below |
    /// | `variants` | [object] | 1…10 of `{key, weight, notification?, data?}`; key `^[A-Za-z0-9_-]{1,16}$`, unique; weight integer 1…1000 |
    /// | `holdout_percent` | integer | 0…99, share of the audience that gets nothing |
    /// | `schedule` | object | optional; see `Schedule.toJSON()` (now, once, daily, weekly in an IANA zone) |
    /// | `delivery` | object | optional: `max_per_minute` 1…600000, `latest_delivery_minutes` 1…40320, `window` `{start, end, time_zone}` (local hours it may send in) |
    /// | `auto_winner` | object | optional, with ≥ 2 variants and a holdout: `after_minutes` (required), `metric` opens \| conversions, `confidence` 90 \| 95 \| 99, `fallback` baseline \| none |
    /// | `live_activity` | object | optional, to a segment or tokens: `event` update \| end (required), `content_state` object (required; its strings may hold variables, as the title and text do), `dismissal_date` RFC 3339 (end only); sent to each iOS device's Live Activity token instead of a notification, the title and text as its alert; no data, image or options other platforms or notifications read |
    ///
    /// Title and body may hold variables (`{{first_name | default: "there"}}`, see `MessageTemplate`)
    /// when the audience is devices (a segment or tokens); every variable a device may lack needs a default.
    ///
    /// Each variant's title + body (its own, completed from the campaign's `notification`) is at
    /// most 1000 characters; each variant needs a title, a body or data; and each rendered message
    /// must fit FCM's 2048-byte topic payload limit (`payload_too_large` at `variants[i]`, or at
    /// `notification` — `data` for a data-only campaign — without variants).
    ///
    /// `options`: `android_channel_id`, `sound`, `icon` (Android drawable name), `click_action`,
    /// `ios_sound`, `ios_category` (strings ≤ 100); `priority` "high" | "normal"; `color` "#rrggbb";
    /// `ios_badge` integer 0…99999; `web_link`, `web_icon` https URLs ≤ 1000; `expiry_seconds`
    /// integer 0…2419200; `analytics_label` `^[a-zA-Z0-9-_.~%]{1,50}$` (with several variants,
    /// "<label>-<key>" must fit too); `collapse_key` `^[A-Za-z0-9_-]{1,32}$`; `overrides`
    /// `{"android": {…}, "apns": {…}, "webpush": {…}}`, raw v1 blocks checked like FCM checks them.
    ///
    /// `ignoring` names top-level members to skip, such as the server's own `id`, `status`,
    /// `version`, `created_at` and `updated_at` on a document that was read and sent back.
    /// `journeyStep` reads a journey send step's message, whose A/B test has no holdout (see
    /// `CampaignParser.journeyStep`).
    public static func parse(_ json: JSON, ignoring: Set<String> = [], journeyStep: Bool = false) -> Result<CampaignSpec, ValidationErrors> {
        var parser = CampaignParser()
        parser.journeyStep = journeyStep
        let spec = parser.parse(json, ignoring: ignoring)
        if let spec, parser.reader.issues.isEmpty {
            return .success(spec)
        }
        return .failure(ValidationErrors(errors: parser.reader.issues))
    }

    /// The members a server adds to a stored campaign, to pass as `ignoring`.
    public static let serverFields: Set<String> = ["id", "status", "version", "created_at", "updated_at"]
}

/// One pass over a campaign document; `reader` collects the problems.
public struct CampaignParser {
    public var reader = JSONReader()
    /// A journey step's A/B test splits every device that reaches the step among the variants
    /// until its winner is called, then sends the winner to those that come after: it holds no
    /// one out to wait for the winner, so its `auto_winner` needs no holdout.
    public var journeyStep = false

    public init() {}

    static let topLevelFields: Set<String> = [
        "name", "notification", "topics", "condition", "segment", "tokens", "data", "options", "variants", "holdout_percent", "schedule",
        "delivery", "auto_winner", "live_activity",
    ]

    /// `checkingPayloads` false skips rendering each variant (a draft's budget renders them itself).
    mutating func parse(_ json: JSON, ignoring: Set<String>, checkingPayloads: Bool = true) -> CampaignSpec? {
        guard let object = reader.object(json, at: "") else { return nil }
        reader.rejectUnknown(object, known: Self.topLevelFields.union(ignoring), at: "")

        let name = reader.string(object, "name", at: "", required: true) ?? ""
        if reader.member(object, "name")?.stringValue != nil {
            if name.allSatisfy(\.isWhitespace) {
                reader.report("name", "required", "the name must not be empty")
            } else {
                checkLength(name, at: "name", limit: CampaignLimits.nameCharacters)
            }
        }
        let notification = reader.object(object, "notification", at: "").map { parseNotification($0, at: "notification") }
        let audience = parseAudience(object)
        let data = parseData(object, at: "")
        let options = reader.object(object, "options", at: "").map { parseOptions($0, at: "options") } ?? CampaignOptions()
        let variants = parseVariants(object)
        var holdout = 0
        if let value = reader.int(object, "holdout_percent", at: "") {
            if (0..<CampaignLimits.holdoutPercentBound).contains(value) {
                holdout = value
            } else {
                reader.report("holdout_percent", "out_of_range", "must be 0 to 99 percent, found \(value)", limit: 99)
            }
        }
        let schedule = reader.member(object, "schedule").flatMap { Schedule.parse($0, at: "schedule", reader: &reader) }
        var spec = CampaignSpec(
            name: name, notification: notification, audience: audience ?? .topics([]), data: data,
            options: options, variants: variants, holdoutPercent: holdout, schedule: schedule)
        spec.delivery = parseDelivery(object)
        spec.autoWinner = parseAutoWinner(object, variants: variants.count, holdout: holdout)
        spec.liveActivity = parseLiveActivity(object)
        checkRecipientTime(spec, audienceGiven: audience.map { !$0.isEmptyTopics } ?? false)
        checkLiveActivity(spec, audienceGiven: audience.map { !$0.isEmptyTopics } ?? false)
        checkConditionRoom(spec)
        checkVariants(spec)
        checkVariables(spec)
        checkBackgroundPriority(spec)
        if checkingPayloads, let audience, !audience.isEmptyTopics {
            checkRenderedPayloads(spec)
        }
        return spec
    }

    /// Reports `too_long` when `text` has more than `limit` characters.
    mutating func checkLength(_ text: String, at path: String, limit: Int) {
        let count = text.count
        if count > limit {
            reader.report(path, "too_long", "at most \(limit) characters, found \(count)", limit: limit)
        }
    }

    /// A string option: "" is unset; longer than `limit` is `too_long`.
    mutating func text(_ object: JSONObject, _ key: String, at parent: String, limit: Int) -> String? {
        guard let value = reader.string(object, key, at: parent), !value.isEmpty else { return nil }
        checkLength(value, at: JSONReader.path(parent, key), limit: limit)
        return value
    }

    /// An https URL option.
    mutating func url(_ object: JSONObject, _ key: String, at parent: String) -> String? {
        guard let value = text(object, key, at: parent, limit: CampaignLimits.urlCharacters) else { return nil }
        if !Message.isHTTPS(value) {
            reader.report(JSONReader.path(parent, key), "not_https", "must be an https:// URL, found \"\(value)\"")
        }
        return value
    }

    mutating func parseNotification(_ object: JSONObject, at path: String) -> NotificationContent {
        reader.rejectUnknown(object, known: ["title", "body", "image", "translations"], at: path)
        // The 1000-character limit is checked per variant, on title and body together.
        return NotificationContent(
            title: reader.string(object, "title", at: path).flatMap { $0.isEmpty ? nil : $0 },
            body: reader.string(object, "body", at: path).flatMap { $0.isEmpty ? nil : $0 },
            image: imageURL(object, at: path),
            translations: parseTranslations(object, at: path))
    }

    /// `translations`: `{"fa": {"title", "body"}, …}`, by BCP 47 tag, at most
    /// `CampaignLimits.translations`, each within the 1000 characters.
    mutating func parseTranslations(_ object: JSONObject, at parent: String) -> [String: NotificationContent] {
        let path = JSONReader.path(parent, "translations")
        guard let members = reader.object(object, "translations", at: parent) else { return [:] }
        if members.count > CampaignLimits.translations {
            reader.report(path, "too_many", "at most \(CampaignLimits.translations) languages, found \(members.count)", limit: CampaignLimits.translations)
        }
        var result: [String: NotificationContent] = [:]
        for (tag, value) in members {
            let itemPath = JSONReader.path(path, tag)
            guard let normalized = LanguageTag.normalized(tag) else {
                reader.report(itemPath, "invalid_value", "a language is a BCP 47 tag such as fa, he or vi-VN, found \"\(tag)\"")
                continue
            }
            if result[normalized] != nil {
                reader.report(itemPath, "duplicate", "the language \(normalized) is given twice")
            }
            guard let text = reader.object(value, at: itemPath) else { continue }
            reader.rejectUnknown(text, known: ["title", "body"], at: itemPath)
            let content = NotificationContent(title: reader.string(text, "title", at: itemPath).flatMap { $0.isEmpty ? nil : $0 },
                                              body: reader.string(text, "body", at: itemPath).flatMap { $0.isEmpty ? nil : $0 })
            if content.characterCount > CampaignLimits.notificationCharacters {
                reader.report(itemPath, "too_long",
                    "the title and body together have at most \(CampaignLimits.notificationCharacters) characters, found \(content.characterCount)",
                    limit: CampaignLimits.notificationCharacters)
            }
            result[normalized] = content
        }
        return result
    }

    /// The notification image: an http or https URL whose path ends in the image's file extension,
    /// which Apple reads the type from (an image at `…/banner?id=7` is never shown on iOS). FCM
    /// takes either scheme; http is what a development server without TLS can offer its own
    /// uploads at (iOS loads only https, which every production deployment behind TLS gives).
    mutating func imageURL(_ object: JSONObject, at parent: String) -> String? {
        guard let value = text(object, "image", at: parent, limit: CampaignLimits.urlCharacters) else { return nil }
        let web = Message.isHTTPS(value) || Message.isAbsoluteURL(value, scheme: "http")
        if !web {
            reader.report(JSONReader.path(parent, "image"), "not_a_web_url", "must be an https:// (or http://) URL, found \"\(value)\"")
        }
        // The path's last segment, after the host: `https://cdn.example.png` has no path at all.
        let afterScheme = value.range(of: "://").map { value[$0.upperBound...] } ?? value[...]
        let pathAndQuery = afterScheme.firstIndex(of: "/").map { afterScheme[$0...] } ?? ""
        let path = pathAndQuery.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
            .split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        let fileExtension = name.contains(".") ? name.split(separator: ".").last.map { $0.lowercased() } ?? "" : ""
        if web, !CampaignLimits.imageExtensions.contains(fileExtension) {
            reader.report(JSONReader.path(parent, "image"), "no_image_extension",
                          "the image URL must end in .png, .jpg, .jpeg or .gif (Apple reads the type from it), found \"\(value)\"")
        }
        return value
    }

    mutating func parseData(_ object: JSONObject, at parent: String) -> StringMap {
        let path = JSONReader.path(parent, "data")
        guard let pairs = reader.stringMap(object, "data", at: parent) else { return [:] }
        for (key, value) in pairs {
            let keyPath = JSONReader.path(path, key)
            // Data goes to the app as written: a variable there would arrive as "{{first_name}}".
            if value.contains("{{"), case .success(let template) = MessageTemplate.parse(value), template.hasVariables {
                reader.report(keyPath, "variables_in_data",
                    "data values are sent as written, not filled in per device: {{\(template.variables[0].name)}} would reach the app literally; use variables in the title and text")
            }
            if key.isEmpty {
                reader.report(keyPath, "required", "data keys must not be empty")
            } else if Message.isReservedDataKey(key) {
                reader.report(keyPath, "reserved_key", "\"\(key)\" is reserved by FCM (from, message_type, google.*, gcm.*)")
            } else if key.count > CampaignLimits.dataKeyCharacters {
                reader.report(keyPath, "too_long", "data keys have at most \(CampaignLimits.dataKeyCharacters) characters",
                    limit: CampaignLimits.dataKeyCharacters)
            }
        }
        return StringMap(pairs)
    }
}

extension Audience {
    var isEmptyTopics: Bool { self == .topics([]) }
}

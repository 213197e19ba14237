import FCMMessage
import HeraldJSON

/// The campaign contract as a JSON Schema (2020-12, the dialect of OpenAPI 3.1), built from the
/// same limits the parser enforces, for the API document. Rules a schema cannot say (characters
/// counted as grapheme clusters, title + body together, condition syntax, reserved data keys,
/// the rendered payload size) are stated in `description`s; `parse` remains the authority.
extension CampaignSpec {
    /// Some character that is not white space (Unicode's White_Space, which Swift's `isWhitespace`
    /// and trimming use), spelled out: `\S` means other things to other regex engines.
    public static let nonSpace = #"[^\t\n\u000b\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"#

    /// A wall-clock time as `LocalTime` reads it: "HH:MM" or "HH:MM:SS".
    /// An RFC 3339 time Herald can keep: a real year, and a UTC offset within ±15:59 (PostgreSQL's).
    static let storableTimePattern = "^(?!0000)[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-](0[0-9]|1[0-5]):[0-5][0-9])$"
    static let localTimePattern = "^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$"
    /// A real calendar date (29 February in leap years only) and a time, as `LocalDateTime` reads it.
    static let localDateTimePattern = "^((?!0000)[0-9]{4}-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))"
        + "|([0-9]{2}(0[48]|[2468][048]|[13579][26])|(0[48]|[2468][048]|[13579][26])00)-02-29)T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$"

    public static var jsonSchema: JSON {
        let label = "^[a-zA-Z0-9-_.~%]{1,50}$"
        let notification: JSON = [
            "type": "object", "additionalProperties": false,
            "description": .string("Title and body together: at most \(CampaignLimits.notificationCharacters) characters as a person counts them (grapheme clusters)."),
            "properties": [
                "title": ["type": "string"],
                "body": ["type": "string"],
                "image": url("An https (or, on a development server without TLS, http) image URL; Apple needs a file extension in it.",
                             pattern: "^https?://"),
                "translations": [
                    "type": "object", "maxProperties": .number(Double(CampaignLimits.translations)),
                    "propertyNames": ["pattern": .string(LanguageTag.pattern)],
                    "description": "The title and body in other languages, by BCP 47 tag: each device gets its language's (exact tag, else the language without its region), else the text above. Campaigns to a segment or tokens only.",
                    "additionalProperties": ["type": "object", "additionalProperties": false,
                                             "properties": ["title": ["type": "string"], "body": ["type": "string"]]],
                ],
            ],
        ]
        let data: JSON = [
            "type": "object", "additionalProperties": ["type": "string"],
            "propertyNames": ["minLength": 1, "maxLength": .number(Double(CampaignLimits.dataKeyCharacters)),
                              "not": ["pattern": "^(from|message_type)$|^(google|gcm)\\."]],
            "description": "Custom string values; keys from, message_type, google.* and gcm.* are reserved by FCM.",
        ]
        let short: JSON = ["type": "string", "maxLength": .number(Double(CampaignLimits.optionCharacters))]
        let platformBlock: JSON = ["type": "object", "description": "A raw v1 block, deep-merged over the rendered one and checked as FCM checks it."]
        let options: JSON = [
            "type": "object", "additionalProperties": false,
            "properties": [
                "android_channel_id": short, "sound": short, "click_action": short, "ios_sound": short, "ios_category": short,
                "icon": ["type": "string", "maxLength": .number(Double(CampaignLimits.optionCharacters)), "description": "An Android drawable resource name."],
                "priority": ["enum": ["high", "normal"]],
                "color": ["type": "string", "pattern": "^#[0-9a-fA-F]{6}$"],
                "ios_badge": ["type": "integer", "minimum": 0, "maximum": .number(Double(CampaignLimits.maximumBadge))],
                "web_link": url("The https page opened when a web notification is clicked."),
                "web_icon": url("The https URL of the web notification's icon."),
                "expiry_seconds": ["type": "integer", "minimum": 0, "maximum": .number(Double(CampaignLimits.maximumExpirySeconds))],
                "analytics_label": ["type": "string", "pattern": .string(label),
                                    "description": "With several variants, \"<label>-<key>\" must match too. Derived from the campaign id when absent."],
                "labels": ["enum": .array(LabelMode.allCases.map { .string($0.rawValue) }),
                           "description": "How messages are labelled for FCM's delivery reports, which count at most 100 labels a day: auto (the default: one label per variant while the day has used fewer than 80, then one for the campaign, then none past 100), per_variant, per_campaign, none."],
                "collapse_key": ["type": "string", "pattern": "^[A-Za-z0-9_-]{1,32}$"],
                "overrides": [
                    "type": "object", "additionalProperties": false,
                    "properties": ["android": platformBlock, "apns": platformBlock, "webpush": platformBlock],
                ],
            ],
        ]
        let variant: JSON = [
            "type": "object", "additionalProperties": false, "required": ["key", "weight"],
            "properties": [
                "key": ["type": "string", "pattern": "^[A-Za-z0-9_-]{1,16}$", "description": "Unique within the campaign."],
                "weight": ["type": "integer", "minimum": 1, "maximum": .number(Double(CampaignLimits.maximumWeight))],
                "notification": notification, "data": data,
            ],
        ]
        let zone: JSON = ["type": "string", "description": "An IANA time zone, such as Asia/Tehran."]
        let schedule: JSON = [
            "type": "object", "required": ["kind"],
            "description": "now | once {at: local date-time, time_zone} | daily {time, time_zone, until?} | weekly {days, time, time_zone, until?}; time zones are IANA names.",
            "properties": [
                "kind": ["enum": ["now", "once", "daily", "weekly"]],
                "at": ["type": "string", "pattern": .string(Self.localDateTimePattern)],
                "time": ["type": "string", "pattern": .string(Self.localTimePattern)],
                "time_zone": zone,
                "until": ["type": "string", "format": "date"],
                "days": ["type": "array", "minItems": 1, "maxItems": 7, "uniqueItems": true,
                         "items": ["enum": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]]],
            ],
            // Each kind takes its own members, as Schedule.parse reads them.
            "oneOf": [
                ["additionalProperties": false, "properties": ["kind": ["const": "now"]]],
                ["additionalProperties": false, "required": ["kind", "at", "time_zone"],
                 "properties": ["kind": ["const": "once"], "at": [:], "time_zone": [:]]],
                ["additionalProperties": false, "required": ["kind", "time", "time_zone"],
                 "properties": ["kind": ["const": "daily"], "time": [:], "time_zone": [:], "until": [:]]],
                ["additionalProperties": false, "required": ["kind", "days", "time", "time_zone"],
                 "properties": ["kind": ["const": "weekly"], "days": [:], "time": [:], "time_zone": [:], "until": [:]]],
            ],
        ]
        let delivery: JSON = [
            "type": "object", "additionalProperties": false,
            "description": "How the requests go out: at most max_per_minute a minute, only within the window's local hours (pausing at its end, resuming at its next start), and none later than latest_delivery_minutes after the run was due (those are reported expired, and the FCM TTL is capped to match).",
            "properties": [
                "max_per_minute": ["type": "integer", "minimum": 1, "maximum": .number(Double(CampaignParser.maximumPerMinute))],
                "spread_minutes": ["type": "integer", "minimum": 1, "maximum": .number(Double(CampaignParser.maximumSpreadMinutes)),
                                   "description": "Instead of max_per_minute: each run's requests spread evenly over this many minutes."],
                "latest_delivery_minutes": ["type": "integer", "minimum": 1, "maximum": .number(Double(CampaignParser.maximumLatestDeliveryMinutes))],
                "category": ["type": "string", "pattern": .string("^(" + CampaignCategory.pattern.dropFirst().dropLast() + ")?$"),
                             "description": "The kind of message (promotions, news): the category's frequency caps count it, and devices that switched it off (quiet_categories) get none of it. Empty: none."],
                "transactional": ["type": "boolean",
                                  "description": "A message a person asked for or must get: no frequency cap stops or counts it, and the global control group gets it. Only a publisher or an admin may set it."],
                "window": [
                    "type": "object", "additionalProperties": false, "required": ["start", "end", "time_zone"],
                    "description": "Sending hours in an IANA zone; an end before the start runs past midnight.",
                    "properties": [
                        "start": ["type": "string", "pattern": .string(Self.localTimePattern)],
                        "end": ["type": "string", "pattern": .string(Self.localTimePattern)],
                        "time_zone": ["type": "string"],
                    ],
                ],
                "recipient_time": [
                    "type": "object", "additionalProperties": false,
                    "description": "Send at the schedule's local time in each recipient's own time zone: waves per zone, starting where the time comes first; needs a once, daily or weekly schedule. A device (segment, tokens) goes by its time_zone (the schedule's zone without one). Topics and conditions go by time-zone topics (tz.Asia.Tehran; POST /api/v1/time-zone-topics subscribes registered devices): one request per zone in time_zones (default: every zone a registered device has), the zone's topic ANDed in. past: a recipient whose time had passed when the run started is skipped (reported expired) or sent at once. latest_delivery_minutes then counts from each wave.",
                    "properties": [
                        "past": ["enum": ["skip", "send"]],
                        "time_zones": ["type": "array", "minItems": 1, "maxItems": .number(Double(RecipientTime.maximumTimeZones)), "uniqueItems": true,
                                       "items": ["type": "string"]],
                    ],
                ],
            ],
        ]
        let autoWinner: JSON = [
            "type": "object", "additionalProperties": false, "required": ["after_minutes"],
            "description": "With variants and a holdout: after_minutes past the test's send, a variant that beats the first (the baseline) on the metric with this confidence goes to the holdout; otherwise the fallback (the baseline, or nothing).",
            "properties": [
                "after_minutes": ["type": "integer", "minimum": 1, "maximum": .number(Double(WinnerRule.maximumMinutes))],
                "metric": ["enum": ["opens", "conversions"]],
                "confidence": ["enum": [90, 95, 99]],
                "fallback": ["enum": ["baseline", "none"]],
            ],
        ]
        let liveActivity: JSON = [
            "type": "object", "additionalProperties": false, "required": ["event", "content_state"],
            "description": "Sent as an update or end of each device's Live Activity instead of a notification (FCM's \"Send Live Activity updates\"): to the iOS devices of a segment or tokens that registered a live_activity_token, the others left out. Each gets apns.live_activity_token, apns-push-type liveactivity, apns-priority 10 (5 with priority normal) and an aps of timestamp (the send's), event, content-state, the title and text as its alert (optional) and dismissal-date. Not with topics, a condition, data, an image or options only notifications or other platforms read.",
            "properties": [
                "event": ["enum": .array(LiveActivity.Event.allCases.map { .string($0.rawValue) })],
                "content_state": ["type": "object", "description": "The activity's ContentState; its strings may hold {{variables}}, filled in per device as the title and text are."],
                "dismissal_date": ["type": "string", "format": "date-time", "maxLength": 40, "pattern": .string(Self.storableTimePattern),
                                   "description": "With event end: when iOS removes the ended activity from the Lock Screen (RFC 3339, its UTC offset within ±15:59)."],
            ],
        ]
        return [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Campaign",
            "type": "object", "additionalProperties": false, "required": ["name"],
            "oneOf": [["required": ["topics"]], ["required": ["condition"]], ["required": ["segment"]], ["required": ["tokens"]]],
            // Something to send: a title or a body, custom data, a Live Activity, or variants (each of which needs
            // its own text or data when the campaign has none — a rule stated, not schema'd).
            "anyOf": [
                ["required": ["notification"], "properties": ["notification": ["anyOf": [
                    ["required": ["title"], "properties": ["title": ["minLength": 1]]],
                    ["required": ["body"], "properties": ["body": ["minLength": 1]]],
                ]]]],
                ["required": ["data"], "properties": ["data": ["minProperties": 1]]],
                ["required": ["variants"]],
                ["required": ["live_activity"]],
            ],
            "properties": [
                "name": ["type": "string", "minLength": 1, "maxLength": .number(Double(CampaignLimits.nameCharacters)), "pattern": .string(nonSpace),
                         "description": "Not blank."],
                "notification": notification,
                "topics": [
                    "type": "array", "minItems": 1, "maxItems": .number(Double(CampaignLimits.topics)), "uniqueItems": true,
                    "items": ["type": "string", "pattern": "^(/topics/)?[a-zA-Z0-9-_.~%]+$",
                              "maxLength": .number(Double(CampaignLimits.topicCharacters + "/topics/".count))],
                ],
                "segment": [
                    "type": "string", "format": "uuid",
                    "description": "A saved segment's id: its active devices, one request each; titles and texts may then hold {{variables}}.",
                ],
                "tokens": [
                    "type": "array", "minItems": 1, "maxItems": .number(Double(CampaignLimits.audienceTokens)), "uniqueItems": true,
                    "items": ["type": "string", "pattern": "^[A-Za-z0-9_:-]+$", "maxLength": .number(Double(RegistrationToken.maximumBytes))],
                    "description": "Registration tokens, one request each; titles and texts may then hold {{variables}}.",
                ],
                "condition": [
                    "type": "string", "maxLength": .number(Double(CampaignLimits.conditionCharacters)),
                    "description": "'topic' in topics with &&, ||, ! and parentheses (mixed && and || must be grouped); at most 5 topic mentions, 4 with variants or a holdout.",
                ],
                "data": data,
                "options": options,
                "variants": ["type": "array", "minItems": 1, "maxItems": .number(Double(CampaignLimits.variants)), "items": variant],
                "holdout_percent": ["type": "integer", "minimum": 0, "maximum": .number(Double(CampaignLimits.holdoutPercentBound - 1))],
                "schedule": schedule,
                "delivery": delivery,
                "auto_winner": autoWinner,
                "live_activity": liveActivity,
            ],
        ]
    }

    private static func url(_ description: String, pattern: String = "^https://") -> JSON {
        ["type": "string", "format": "uri", "pattern": .string(pattern), "maxLength": .number(Double(CampaignLimits.urlCharacters)),
         "description": .string(description)]
    }
}

import HeraldJSON

/// The v1 `Message` and every type inside it, field by field, from the REST reference
/// (firebase.google.com/docs/reference/fcm/rest/v1/projects.messages).
enum V1Schema {
    static let fourWeeks = 2_419_200

    static let message = MessageSchema(typeName: "google.firebase.fcm.v1.Message", fields: [
        "name": .string(),
        "data": .stringMap(check: FormatRules.dataEntry),
        "notification": .message(notification),
        "android": .message(androidConfig),
        "webpush": .message(webpushConfig),
        "apns": .message(apnsConfig),
        "fcm_options": .message(fcmOptions),
        "token": .string(),
        "topic": .string(),
        "condition": .string(),
        "fid": .string(),
    ])

    static let notification = MessageSchema(typeName: "google.firebase.fcm.v1.Notification", fields: [
        "title": .string(), "body": .string(), "image": .string(),
    ])

    static let fcmOptions = MessageSchema(typeName: "google.firebase.fcm.v1.FcmOptions", fields: [
        "analytics_label": .string(format: FormatRules.analyticsLabel),
    ])

    static let androidConfig = MessageSchema(typeName: "google.firebase.fcm.v1.AndroidConfig", fields: [
        "collapse_key": .string(),
        "priority": .string(format: FormatRules.oneOf(["NORMAL", "HIGH"])),
        "ttl": .string(format: FormatRules.duration(max: fourWeeks)),
        "restricted_package_name": .string(),
        "data": .stringMap(check: FormatRules.dataEntry),
        "notification": .message(androidNotification),
        "fcm_options": .message(MessageSchema(typeName: "google.firebase.fcm.v1.AndroidFcmOptions", fields: [
            "analytics_label": .string(format: FormatRules.analyticsLabel),
        ])),
        "direct_boot_ok": .bool,
        "bandwidth_constrained_ok": .bool,
        "restricted_satellite_ok": .bool,
    ])

    static let androidNotification = MessageSchema(typeName: "google.firebase.fcm.v1.AndroidNotification", fields: [
        "title": .string(), "body": .string(), "icon": .string(),
        "color": .string(format: FormatRules.color),
        "sound": .string(), "tag": .string(), "click_action": .string(),
        "body_loc_key": .string(), "body_loc_args": .list(.string()),
        "title_loc_key": .string(), "title_loc_args": .list(.string()),
        "channel_id": .string(), "ticker": .string(), "sticky": .bool,
        "event_time": .string(format: FormatRules.timestamp),
        "local_only": .bool,
        "notification_priority": .string(format: FormatRules.oneOf([
            "PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH", "PRIORITY_MAX",
        ])),
        "default_sound": .bool, "default_vibrate_timings": .bool, "default_light_settings": .bool,
        "vibrate_timings": .list(.string(format: FormatRules.duration(max: Int(Int32.max)))),
        "visibility": .string(format: FormatRules.oneOf(["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"])),
        "notification_count": .integer(0...Int(Int32.max)),
        "light_settings": .message(MessageSchema(typeName: "google.firebase.fcm.v1.LightSettings", fields: [
            "color": .message(MessageSchema(typeName: "google.type.Color", fields: [
                "red": .number, "green": .number, "blue": .number, "alpha": .number,
            ])),
            "light_on_duration": .string(format: FormatRules.duration(max: Int(Int32.max))),
            "light_off_duration": .string(format: FormatRules.duration(max: Int(Int32.max))),
        ])),
        "image": .string(),
        "bypass_proxy_notification": .bool,
        "proxy": .string(format: FormatRules.oneOf(["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"])),
    ])

    static let apnsConfig = MessageSchema(typeName: "google.firebase.fcm.v1.ApnsConfig", fields: [
        "headers": .stringMap(check: FormatRules.apnsHeader),
        // The payload goes to APNs as is; only `aps` has a shape FCM insists on.
        "payload": .anyObject(check: { payload in
            if let aps = payload["aps"], aps.objectValue == nil { return ("aps", "aps must be an object") }
            return nil
        }),
        "fcm_options": .message(MessageSchema(typeName: "google.firebase.fcm.v1.ApnsFcmOptions", fields: [
            "analytics_label": .string(format: FormatRules.analyticsLabel),
            "image": .string(),
        ])),
        "live_activity_token": .string(),
    ])

    static let webpushConfig = MessageSchema(typeName: "google.firebase.fcm.v1.WebpushConfig", fields: [
        "headers": .stringMap(check: FormatRules.webpushHeader),
        "data": .stringMap(),
        // A Web Notification API object, passed to the browser as is.
        "notification": .anyObject(),
        "fcm_options": .message(MessageSchema(typeName: "google.firebase.fcm.v1.WebpushFcmOptions", fields: [
            "link": .string(format: FormatRules.httpsURL),
            "analytics_label": .string(format: FormatRules.analyticsLabel),
        ])),
    ])
}

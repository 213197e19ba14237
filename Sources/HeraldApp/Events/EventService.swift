import FCMMessage
import HeraldCore
import HeraldJSON

/// Events reported by apps or backends, one object or `{"events": [...]}` (at most 500),
/// idempotent by each event's `id`: opens and conversions per campaign and variant, and the app's
/// own events (`{"id", "event", "device", "properties", "time"}`: what a user did), which start,
/// wake and end journeys.
public struct EventService: Sendable {
    let database: Database
    let store = EventStore()
    let journeys: JourneyEvents?

    static let maximumBatch = 500
    static let fields: Set<String> = ["id", "campaign_id", "variant", "type", "occurred_at", "device_token"]

    /// `journeys`: what app events do to journeys (nil: they are only recorded).
    public init(database: Database, journeys: JourneyEvents? = nil) {
        self.database = database
        self.journeys = journeys
    }

    /// What a batch came to: how many were new, how many were already recorded.
    public struct Recorded: Sendable {
        public var received: Int
        public var recorded: Int
        public var duplicates: Int { received - recorded }
    }

    /// Records the events of `body`, or refuses all of them with every problem found.
    public func record(_ body: JSON) throws -> Recorded {
        let (events, appEvents, errors) = Self.parse(body)
        if !errors.isEmpty { throw AppError.invalid(ValidationErrors(errors: errors), title: "The events are not valid") }
        let recorded = try database.transaction { connection in
            // What users did: recorded, then acted on by the journeys (only the new ones: a retry moves no one twice).
            let newAppEvents = try AppEventStore().record(appEvents, on: connection)
            if let journeys { try journeys.apply(newAppEvents, on: connection) }
            let contents = try store.contents(of: Set(events.compactMap(\.campaignID)), on: connection)
            let variants = contents.compactMapValues(Self.variantKeys)
            var unknown: [FieldError] = []
            for (index, event) in events.enumerated() {
                guard let campaignID = event.campaignID, let variant = event.variant else { continue }
                if contents[campaignID] == nil {
                    unknown.append(FieldError(path: Self.path(body, index, "campaign_id"), code: "unknown_campaign", message: "no campaign \(campaignID)"))
                } else if let keys = variants[campaignID], !keys.contains(variant) {
                    // Counted under a key the campaign never sent, the event would skew no variant's
                    // rate and hide a client's bug; refusing it shows the bug at once.
                    unknown.append(FieldError(path: Self.path(body, index, "variant"), code: "unknown_variant",
                                              message: "campaign \(campaignID) has no variant \"\(variant)\"; it has \(keys.joined(separator: ", "))"))
                }
            }
            if !unknown.isEmpty { throw AppError.invalid(ValidationErrors(errors: unknown), title: "The events are not valid") }
            let opens = try store.record(events, on: connection)
            // An open or conversion wakes a journey's device waiting for it.
            if let journeys { try journeys.wake(events, on: connection) }
            return opens + newAppEvents.count
        }
        return Recorded(received: events.count + appEvents.count, recorded: recorded)
    }

    /// Every event of the body, or every problem with it (paths like `events[2].type`).
    static func parse(_ body: JSON) -> ([EventStore.Event], [AppEvent], [FieldError]) {
        var items: [JSON]
        var batch = false
        if let list = body["events"]?.arrayValue {
            items = list
            batch = true
            if items.isEmpty || items.count > maximumBatch {
                return ([], [], [FieldError(path: "events", code: "out_of_range", message: "send 1 to \(maximumBatch) events at a time", limit: maximumBatch)])
            }
        } else {
            items = [body]
        }
        var events: [EventStore.Event] = []
        var appEvents: [AppEvent] = []
        var errors: [FieldError] = []
        if batch {
            for key in body.objectValue?.keys ?? [] where key != "events" {
                errors.append(FieldError(path: key, code: "unknown_field", message: "unknown field \"\(key)\" beside events; a batch is {\"events\": [...]}"))
            }
        }
        for (index, item) in items.enumerated() {
            let prefix = batch ? "events[\(index)]." : ""
            guard case .object(let object) = item else {
                errors.append(FieldError(path: batch ? "events[\(index)]" : "", code: "wrong_type", message: "an event is a JSON object"))
                continue
            }
            if object["event"] != nil {
                var reader = JSONReader()
                if let event = AppEvent.parse(object, at: prefix, reader: &reader) { appEvents.append(event) }
                errors += reader.issues
                continue
            }
            for key in object.keys where !fields.contains(key) {
                errors.append(FieldError(path: prefix + key, code: "unknown_field", message: "unknown field \"\(key)\"; known: \(fields.sorted().joined(separator: ", "))"))
            }
            let id = EventID(object["id"]?.stringValue ?? "")
            if id == nil {
                errors.append(FieldError(path: prefix + "id", code: "required", message: "id is the event's own unique id, 1 to \(EventID.maximumCharacters) characters",
                                         limit: EventID.maximumCharacters))
            }
            // Without a campaign (and its variant) the event is the app's own: an app open, a purchase.
            let campaign = object["campaign_id"], variant = object["variant"]
            let appLevel = campaign == nil && variant == nil
            if !appLevel, !UUIDText.isUUID(campaign?.stringValue ?? "") {
                errors.append(FieldError(path: prefix + "campaign_id", code: "required",
                                         message: "campaign_id is the campaign's id (a UUID); leave it and variant out for the app's own event"))
            }
            if !appLevel, !isVariantKey(variant?.stringValue ?? "") {
                errors.append(FieldError(path: prefix + "variant", code: "invalid_key", message: "variant is a variant key such as \"A\": 1 to 16 letters, digits, - and _"))
            }
            let type = EventType(rawValue: object["type"]?.stringValue ?? "")
            if type == nil {
                errors.append(FieldError(path: prefix + "type", code: "invalid_value",
                                         message: "type is \(EventType.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or "))"))
            }
            var occurred: String?
            if let value = object["occurred_at"], value != .null {
                if let text = value.stringValue, isTimestamp(text) {
                    occurred = text
                } else {
                    errors.append(FieldError(path: prefix + "occurred_at", code: "invalid_value", message: "occurred_at is an RFC 3339 time such as \"2026-11-22T09:30:00Z\": a real date and time, its UTC offset within ±15:59"))
                }
            }
            // The device, when the app names it, makes rates per recipient: its repeats count once.
            var device: String?
            if let value = object["device_token"], value != .null {
                if let token = value.stringValue, RegistrationToken.problem(token) == nil {
                    device = token
                } else {
                    errors.append(FieldError(path: prefix + "device_token", code: "invalid_token",
                                             message: "device_token is the device's registration token: letters, digits, -, _ and : only"))
                }
            }
            if appLevel, device == nil, object["device_token"] == nil || object["device_token"] == .null {
                errors.append(FieldError(path: prefix + "device_token", code: "required",
                                         message: "an event without a campaign is the app's own (an app open, a purchase): it needs device_token"))
            }
            // An event without its id is refused (above): the batch is not stored.
            guard let id else { continue }
            events.append(EventStore.Event(id: id, campaignID: campaign?.stringValue?.lowercased(), variant: variant?.stringValue, type: type ?? .open,
                                           occurredAt: occurred, deviceToken: device))
        }
        return (events, appEvents, errors)
    }

    /// The campaign's variant keys; nil when its stored content no longer parses (then any key is
    /// taken rather than losing the app's events over a rule that changed after sending).
    static func variantKeys(_ content: String) -> [String]? {
        guard let json = try? JSON.parse(content), case .success(let spec) = CampaignSpec.parse(json) else { return nil }
        return spec.effectiveVariants.map(\.key)
    }

    static func path(_ body: JSON, _ index: Int, _ field: String) -> String {
        body["events"]?.arrayValue == nil ? field : "events[\(index)].\(field)"
    }

    static func isVariantKey(_ key: String) -> Bool {
        (1...16).contains(key.utf8.count) && key.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`, checked by shape; PostgreSQL checks the calendar.
    static func isTimestamp(_ text: String) -> Bool { RFC3339.isStorable(text) }
}

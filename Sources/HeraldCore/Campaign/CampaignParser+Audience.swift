import FCMMessage
import HeraldJSON

extension CampaignParser {
    /// The audience members, exactly one of them.
    static let audienceFields = ["topics", "condition", "segment", "tokens"]

    /// `topics`, `condition`, `segment` or `tokens`, exactly one of them.
    mutating func parseAudience(_ object: JSONObject) -> Audience? {
        let given = Self.audienceFields.filter { reader.member(object, $0) != nil }
        if given.count > 1 {
            reader.report(given[1], "conflict", "give one audience: \(given.map { "\"\($0)\"" }.joined(separator: " or ")), not several")
        }
        guard let field = given.first else {
            reader.report("topics", "required",
                "a campaign needs \"topics\" (1 to \(CampaignLimits.topics) topic names), a \"condition\", a \"segment\" or \"tokens\"")
            return nil
        }
        switch field {
        case "topics":
            guard let names = reader.strings(object, "topics", at: "") else { return nil }
            return .topics(checkTopics(names))
        case "condition":
            guard let condition = reader.string(object, "condition", at: "") else { return nil }
            checkCondition(condition)
            return .condition(condition)
        case "segment":
            guard let id = reader.string(object, "segment", at: "") else { return nil }
            guard let segment = SegmentID(id) else {
                reader.report("segment", "invalid_value", "a segment is named by its id (a UUID), found \"\(id)\"")
                return .segment(.refused)
            }
            return .segment(segment)
        default:
            guard let tokens = reader.strings(object, "tokens", at: "") else { return nil }
            if !(1...CampaignLimits.audienceTokens).contains(tokens.count) {
                reader.report("tokens", "out_of_range",
                    "a campaign names 1 to \(CampaignLimits.audienceTokens) registration tokens (use a segment for more), found \(tokens.count)",
                    limit: CampaignLimits.audienceTokens)
            }
            for error in RegistrationToken.errors(tokens, at: "tokens") { reader.report(error.path, error.code, error.message) }
            var seen: Set<String> = []
            for (index, token) in tokens.enumerated() where !seen.insert(token).inserted {
                reader.report(JSONReader.path("tokens", index: index), "duplicate", "the token on line \(index + 1) is listed twice")
            }
            return .tokens(tokens)
        }
    }

    /// `segment` or `tokens`, exactly one of them (a topic subscription's audience).
    public mutating func parseDeviceAudience(_ object: JSONObject) -> Audience? {
        guard object["segment"] != nil || object["tokens"] != nil else {
            reader.report("segment", "required", "give \"segment\" (a segment's id) or \"tokens\" (registration tokens)")
            return nil
        }
        return parseAudience(object)
    }

    mutating func checkTopics(_ names: [String]) -> [String] {
        if names.isEmpty {
            reader.report("topics", "required", "at least one topic is required", limit: 1)
        } else if names.count > CampaignLimits.topics {
            reader.report("topics", "too_many", "at most \(CampaignLimits.topics) topics, found \(names.count)",
                limit: CampaignLimits.topics)
        }
        var seen: Set<String> = []
        var result: [String] = []
        for (index, raw) in names.enumerated() {
            let path = JSONReader.path("topics", index: index)
            let name = TopicName.stripPrefix(raw)
            if !TopicName.isValid(name) {
                reader.report(path, "invalid_topic",
                    "a topic name has letters, digits and - _ . ~ % only, found \"\(raw)\"")
            } else if name.count > CampaignLimits.topicCharacters {
                reader.report(path, "too_long", "topic names have at most \(CampaignLimits.topicCharacters) characters",
                    limit: CampaignLimits.topicCharacters)
            } else if !seen.insert(name).inserted {
                reader.report(path, "duplicate", "the topic \"\(name)\" is listed twice")
            }
            result.append(name)
        }
        return result
    }

    mutating func checkCondition(_ condition: String) {
        if condition.count > CampaignLimits.conditionCharacters {
            checkLength(condition, at: "condition", limit: CampaignLimits.conditionCharacters)
            return
        }
        do {
            let parsed = try TopicCondition.parse(condition, requireGrouping: true)
            if parsed.topicCount > CampaignLimits.conditionTopics {
                reader.report("condition", "too_many_topics",
                    "a condition names at most \(CampaignLimits.conditionTopics) topics, found \(parsed.topicCount)",
                    limit: CampaignLimits.conditionTopics)
            }
        } catch {
            reader.report("condition", "invalid_condition", error.description)
        }
    }

    /// A condition combined with audience buckets needs one topic place for the bucket part.
    mutating func checkConditionRoom(_ spec: CampaignSpec) {
        guard case .condition(let condition) = spec.audience, let parsed = try? TopicCondition.parse(condition) else { return }
        // Recipient time ANDs a time-zone topic into every condition.
        let zoned = spec.delivery.recipientTime != nil
        let room = CampaignLimits.conditionTopics - (spec.usesBuckets ? 1 : 0) - (zoned ? 1 : 0)
        // Over five is the condition's own error, reported where it is read.
        guard parsed.topicCount > room, parsed.topicCount <= CampaignLimits.conditionTopics else { return }
        let places = [spec.usesBuckets ? "one for the audience buckets" : nil, zoned ? "one for the time-zone topic of recipient time" : nil]
            .compactMap { $0 }.joined(separator: " and ")
        let with = [spec.usesBuckets ? "A/B variants or a holdout" : nil, zoned ? "recipient time" : nil].compactMap { $0 }.joined(separator: " and ")
        reader.report("condition", "too_many_topics",
            "with \(with), a condition names at most \(room) topics (\(places) is needed), found \(parsed.topicCount)", limit: room)
    }

    /// `variants`: keys, weights, their own notification and data.
    mutating func parseVariants(_ object: JSONObject) -> [VariantSpec] {
        guard let value = reader.member(object, "variants") else { return [] }
        guard let elements = value.arrayValue else {
            reader.wrongType("variants", expected: "an array of variants", found: value)
            return []
        }
        if elements.isEmpty {
            reader.report("variants", "required", "leave \"variants\" out, or give at least one", limit: 1)
        } else if elements.count > CampaignLimits.variants {
            reader.report("variants", "too_many", "at most \(CampaignLimits.variants) variants, found \(elements.count)",
                limit: CampaignLimits.variants)
        }
        var keys: Set<String> = []
        var result: [VariantSpec] = []
        for (index, element) in elements.enumerated() {
            let path = JSONReader.path("variants", index: index)
            guard let variant = reader.object(element, at: path) else { continue }
            reader.rejectUnknown(variant, known: ["key", "weight", "notification", "data"], at: path)
            let key = reader.string(variant, "key", at: path, required: true) ?? ""
            if reader.member(variant, "key")?.stringValue != nil {
                if !Self.isVariantKey(key) {
                    reader.report(JSONReader.path(path, "key"), "invalid_key",
                        "a variant key has 1 to \(CampaignLimits.variantKeyCharacters) letters, digits, - and _ only, found \"\(key)\"",
                        limit: CampaignLimits.variantKeyCharacters)
                } else if !keys.insert(key).inserted {
                    reader.report(JSONReader.path(path, "key"), "duplicate", "the variant key \"\(key)\" is used twice")
                }
            }
            let weight = reader.int(variant, "weight", at: path, required: true) ?? 1
            if !(1...CampaignLimits.maximumWeight).contains(weight) {
                reader.report(JSONReader.path(path, "weight"), "out_of_range",
                    "weights are whole numbers from 1 to \(CampaignLimits.maximumWeight), found \(weight)",
                    limit: CampaignLimits.maximumWeight)
            }
            let notification = reader.object(variant, "notification", at: path)
                .map { parseNotification($0, at: JSONReader.path(path, "notification")) }
            let data = parseData(variant, at: path)
            result.append(VariantSpec(key: key, weight: weight, notification: notification, data: data))
        }
        return result
    }

    static func isVariantKey(_ key: String) -> Bool {
        (1...CampaignLimits.variantKeyCharacters).contains(key.unicodeScalars.count)
            && key.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_", "-": true
                default: false
                }
            }
    }
}

extension CampaignParser {
    /// The variables in titles and texts (and a Live Activity's content state): well formed, only
    /// for device audiences (a topic message is one text for everyone), and with a default
    /// wherever a device may lack the value.
    mutating func checkVariables(_ spec: CampaignSpec) {
        var texts: [(path: String, text: String?)] = []
        func add(_ content: NotificationContent?, at path: String) {
            texts.append((JSONReader.path(path, "title"), content?.title))
            texts.append((JSONReader.path(path, "body"), content?.body))
            for (language, text) in content?.translations ?? [:] {
                let translationPath = JSONReader.path(JSONReader.path(path, "translations"), language)
                if !spec.audience.isPerDevice {
                    reader.report(translationPath, "needs_devices",
                        "a text per language is chosen per device: target a segment or tokens, not topics")
                }
                texts.append((JSONReader.path(translationPath, "title"), text.title))
                texts.append((JSONReader.path(translationPath, "body"), text.body))
            }
        }
        add(spec.notification, at: "notification")
        for (index, variant) in spec.variants.enumerated() {
            add(variant.notification, at: JSONReader.path(JSONReader.path("variants", index: index), "notification"))
        }
        // A Live Activity's content state is filled in per device as the text is (to topics it is refused whole).
        if spec.audience.isPerDevice, let activity = spec.liveActivity {
            texts += activity.strings(at: "live_activity.content_state").map { ($0.path, $0.text) }
        }
        for (path, text) in texts {
            guard let text, text.contains("{{") else { continue }
            switch MessageTemplate.parse(text) {
            case .failure(let problem):
                reader.report(path, problem.code, problem.message)
            case .success(let template):
                guard template.hasVariables else { continue }
                guard spec.audience.isPerDevice else {
                    reader.report(path, "needs_devices",
                        "variables such as {{\(template.variables[0].name)}} are filled in per device: target a segment or tokens, not topics")
                    continue
                }
                for variable in template.variables where variable.fallback == nil && !MessageTemplate.alwaysPresent.contains(variable.name) {
                    reader.report(path, "missing_default",
                        "{{\(variable.name)}} needs a default for devices without it, as {{\(variable.name) | default: \"…\"}}")
                }
            }
        }
    }
}

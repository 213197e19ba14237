/// The composer form's fields as typed (a failed save shows them unchanged), with the choices of
/// each radio group and select. The posted field names stay snake_case in the template; these are
/// only the values.
struct ComposerFields: Sendable {
    /// An A/B variant's row, with its errors beside each of its fields.
    struct VariantRow: Sendable {
        let index: Int
        let number: Int
        let key: String
        let weight: String
        let title: String
        let body: String
        let keyErrors: [String]
        let weightErrors: [String]
        let titleErrors: [String]
        let bodyErrors: [String]
        let keyInvalid: Bool
        let weightInvalid: Bool
        let titleInvalid: Bool
        let bodyInvalid: Bool

        init(index: Int, _ row: CampaignForm.VariantRow, _ errors: FormErrors) {
            self.index = index
            number = index + 1
            key = row.key
            weight = row.weight
            title = row.title
            body = row.body
            keyErrors = errors["variant_key_\(index)"]
            weightErrors = errors["variant_weight_\(index)"]
            titleErrors = errors["variant_title_\(index)"]
            bodyErrors = errors["variant_body_\(index)"]
            keyInvalid = !keyErrors.isEmpty
            weightInvalid = !weightErrors.isEmpty
            titleInvalid = !titleErrors.isEmpty
            bodyInvalid = !bodyErrors.isEmpty
        }
    }

    /// A custom data key and value.
    struct DataRow: Sendable {
        let index: Int
        let number: Int
        let key: String
        let value: String
    }

    static let timeZones = ["UTC", "Europe/London", "Europe/Berlin", "Europe/Paris", "Asia/Tehran", "Asia/Jerusalem",
                            "Asia/Kolkata", "Asia/Ho_Chi_Minh", "Asia/Tokyo", "America/New_York", "America/Chicago",
                            "America/Los_Angeles", "America/Sao_Paulo", "Australia/Sydney"]

    let name: String
    let title: String
    let body: String
    let imageURL: String
    let targetTopics: Bool
    let targetCondition: Bool
    let topics: String
    let condition: String
    let scheduleAt: String
    let scheduleTime: String
    let scheduleUntil: String
    let holdoutPercent: String
    let version: Int
    let characterCount: Int
    let scheduleKinds: [Choice]
    let timeZones: [Choice]
    let days: [Choice]
    let variants: [VariantRow]
    let data: [DataRow]
    let priorities: [Choice]
    let androidChannelID: String
    let sound: String
    let icon: String
    let color: String
    let clickAction: String
    let iosBadge: String
    let iosSound: String
    let iosCategory: String
    let webLink: String
    let expirySeconds: String

    init(_ form: CampaignForm, _ errors: FormErrors = FormErrors()) {
        name = form.name
        title = form.title
        body = form.body
        imageURL = form.imageURL
        targetTopics = form.targetKind == "topics"
        targetCondition = form.targetKind == "condition"
        topics = form.topics
        condition = form.condition
        scheduleAt = form.scheduleAt
        scheduleTime = form.scheduleTime
        scheduleUntil = form.scheduleUntil
        holdoutPercent = form.holdoutPercent
        version = form.version
        characterCount = form.title.count + form.body.count
        scheduleKinds = [("none", "Keep as a draft (schedule later)"), ("now", "Send now when published"), ("once", "Once, at a local time"),
                         ("daily", "Every day"), ("weekly", "Every week")].map { Choice($0, text: $1, selected: form.scheduleKind == $0) }
        // A stored zone not in the short list is kept, first, so saving again does not change it.
        let zones = Self.timeZones.contains(form.timeZone) || form.timeZone.isEmpty ? Self.timeZones : [form.timeZone] + Self.timeZones
        timeZones = zones.map { Choice($0, selected: $0 == form.timeZone) }
        days = CampaignForm.weekdays.map { Choice($0, selected: form.scheduleDays.contains($0)) }
        variants = form.variants.enumerated().map { VariantRow(index: $0, $1, errors) }
        data = form.data.enumerated().map { DataRow(index: $0, number: $0 + 1, key: $1.key, value: $1.value) }
        priorities = [("", "Default"), ("high", "High"), ("normal", "Normal")].map {
            Choice($0, text: $1, selected: (form.options["priority"] ?? "") == $0)
        }
        func option(_ field: String) -> String { form.options[field] ?? "" }
        androidChannelID = option("android_channel_id")
        sound = option("sound")
        icon = option("icon")
        color = option("color")
        clickAction = option("click_action")
        iosBadge = option("ios_badge")
        iosSound = option("ios_sound")
        iosCategory = option("ios_category")
        webLink = option("web_link")
        expirySeconds = option("expiry_seconds")
    }
}

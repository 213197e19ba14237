import FCMMessage
import HeraldCore
import HeraldJSON

/// A one-call send as asked for: a saved campaign as the template (`campaign`, perhaps one of its
/// variants) or an inline `message`, to `to`, each recipient a token or an FID with its own
/// variables. Pure: parsed and checked before anything is read or written.
struct SendRequest: Sendable, Equatable {
    static let maximumRecipients = CampaignLimits.audienceTokens
    static let maximumVariables = 50
    static let variableCharacters = 1000

    struct Recipient: Sendable, Equatable {
        /// The device's identifier, as `Device.token`: its registration token or its FID (`kind` says which).
        var token: String
        var kind: DeviceKind
        /// Values for the message's `{{variables}}`, over the registered device's properties.
        var variables: [String: String]
    }

    enum Template: Sendable, Equatable {
        case campaign(CampaignID, variant: String?)
        /// The inline message as a campaign's JSON (without its audience).
        case message(JSON)
    }

    var template: Template
    var recipients: [Recipient]

    /// Reads the request, every problem at once.
    static func parse(_ json: JSON) -> Result<SendRequest, ValidationErrors> {
        var reader = JSONReader()
        guard let object = reader.object(json, at: "") else { return .failure(ValidationErrors(errors: reader.issues)) }
        reader.rejectNulls(json)
        reader.rejectUnknown(object, known: ["campaign", "variant", "message", "to"], at: "")
        var template: Template?
        let campaign = reader.string(object, "campaign", at: "")
        let message = reader.member(object, "message")
        switch (campaign, message) {
        case (let id?, nil):
            if let parsed = CampaignID(id) {
                template = .campaign(parsed, variant: reader.string(object, "variant", at: ""))
            } else {
                reader.report("campaign", "invalid_value", "\"campaign\" is a campaign's id (a UUID), found \"\(id)\"")
            }
        case (nil, let message?):
            if reader.member(object, "variant") != nil {
                reader.report("variant", "not_allowed", "\"variant\" picks a variant of a saved campaign; an inline message is sent as it is")
            }
            if reader.object(message, at: "message") != nil { template = .message(message) }
        case (.some, .some):
            reader.report("", "conflict", "name a saved campaign (\"campaign\") or give a \"message\", not both")
        case (nil, nil):
            reader.report("message", "required", "give a \"message\" to send, or the \"campaign\" to send as a template")
        }
        var recipients: [Recipient] = []
        if let to = reader.member(object, "to") {
            if let items = to.arrayValue {
                if items.isEmpty || items.count > maximumRecipients {
                    reader.report("to", items.isEmpty ? "required" : "too_many",
                                  "\"to\" lists 1 to \(maximumRecipients) recipients, found \(items.count)", limit: maximumRecipients)
                }
                for (index, item) in items.prefix(maximumRecipients).enumerated() {
                    if let recipient = parseRecipient(item, at: "to[\(index)]", &reader) { recipients.append(recipient) }
                }
            } else {
                reader.wrongType("to", expected: "an array of recipients", found: to)
            }
        } else {
            reader.report("to", "required", "\"to\" lists the recipients: {\"token\": …} or {\"fid\": …}, each with its \"variables\"")
        }
        guard let template, reader.issues.isEmpty else { return .failure(ValidationErrors(errors: reader.issues)) }
        return .success(SendRequest(template: template, recipients: recipients))
    }

    private static func parseRecipient(_ item: JSON, at path: String, _ reader: inout JSONReader) -> Recipient? {
        guard let object = reader.object(item, at: path) else { return nil }
        reader.rejectUnknown(object, known: ["token", "fid", "variables"], at: path)
        let token = reader.string(object, "token", at: path), fid = reader.string(object, "fid", at: path)
        var recipient: Recipient?
        switch (token, fid) {
        case (let token?, nil):
            if let problem = RegistrationToken.problem(token) {
                reader.report(JSONReader.path(path, "token"), "invalid_token", "the token \(problem)")
            } else {
                recipient = Recipient(token: token, kind: .token, variables: [:])
            }
        case (nil, let fid?):
            if let problem = InstallationID.problem(fid) {
                reader.report(JSONReader.path(path, "fid"), "invalid_fid", "the installation ID \(problem)")
            } else {
                recipient = Recipient(token: fid, kind: .fid, variables: [:])
            }
        default:
            reader.report(path, "invalid_value", "a recipient has a \"token\" or an \"fid\", one of them")
        }
        if let variables = reader.stringMap(object, "variables", at: path) {
            if variables.count > maximumVariables {
                reader.report(JSONReader.path(path, "variables"), "too_many", "at most \(maximumVariables) variables", limit: maximumVariables)
            }
            for (key, value) in variables where value.unicodeScalars.count > variableCharacters || key.isEmpty {
                reader.report(JSONReader.path(JSONReader.path(path, "variables"), key), "too_long",
                              "a variable has a name and at most \(variableCharacters) characters", limit: variableCharacters)
            }
            recipient?.variables = Dictionary(variables.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        }
        return recipient
    }
}

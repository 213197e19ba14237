import HeraldJSON

/// Codable through the message's own REST form, so any encoder (Foundation's JSONEncoder included)
/// writes exactly the v1 field names, and decoding is as strict as `fromJSON`.
extension Message: Codable {
    public init(from decoder: any Decoder) throws {
        let json = try JSON(from: decoder)
        do {
            self = try Message.fromJSON(json)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try json().encode(to: encoder)
    }
}

import HeraldCore
import HeraldPostgres

// The domain's string-backed values as bind parameters and row values (HeraldCore knows no SQL).
extension CampaignStatus: PostgresEncodable, PostgresDecodable, PostgresArrayElement {}
extension DeliveryStatus: PostgresEncodable, PostgresDecodable, PostgresArrayElement {}
extension RunStatus: PostgresEncodable, PostgresDecodable, PostgresArrayElement {}
extension DeviceStatus: PostgresEncodable, PostgresDecodable {}
extension EventType: PostgresEncodable, PostgresDecodable {}
extension WebhookDeliveryStatus: PostgresEncodable, PostgresDecodable {}
extension ApprovalState: PostgresEncodable, PostgresDecodable {}
extension TopicJob.Status: PostgresEncodable, PostgresDecodable {}
extension TopicJob.Kind: PostgresEncodable, PostgresDecodable {}
extension Role: PostgresEncodable, PostgresDecodable {}
extension APIKeyScope: PostgresEncodable, PostgresDecodable {}
extension Attribution.Kind: PostgresEncodable, PostgresDecodable {}
extension AuditAction: PostgresEncodable {}

extension UUIDIdentifier {
    public static var postgresType: PostgresType { .uuid }
    public var postgresValue: PostgresValue { PostgresValue(type: .uuid, text: description) }
    public static func decode(from cell: PostgresCell) throws -> Self {
        guard let id = Self(try String.decode(from: cell)) else { throw cell.mismatch(Self.self) }
        return id
    }
}

extension UUIDIdentifier {
    // Bound as text[], which the statements cast (`::uuid[]`), as they cast a text[] of ids.
    public static var postgresArrayType: PostgresType { .textArray }
    public static func postgresValue(ofArray array: [Self]) -> PostgresValue { String.postgresValue(ofArray: array.map(\.description)) }
    public static func decodeArray(from cell: PostgresCell) throws -> [Self] {
        try String.decodeArray(from: cell).map { text in
            guard let id = Self(text) else { throw cell.mismatch(Self.self) }
            return id
        }
    }
}

extension CampaignID: PostgresEncodable, PostgresDecodable, PostgresArrayElement {}
extension RunID: PostgresEncodable, PostgresDecodable, PostgresArrayElement {}
extension JourneyID: PostgresEncodable, PostgresDecodable, PostgresArrayElement {}
extension JourneyStatus: PostgresEncodable, PostgresDecodable, PostgresArrayElement {}
extension JourneyPlaceStatus: PostgresEncodable, PostgresDecodable, PostgresArrayElement {}
extension WebhookID: PostgresEncodable, PostgresDecodable {}
extension UserID: PostgresEncodable, PostgresDecodable {}
extension APIKeyID: PostgresEncodable, PostgresDecodable {}
extension SegmentID: PostgresEncodable, PostgresDecodable {}
extension TopicJobID: PostgresEncodable, PostgresDecodable {}
extension WebhookEventID: PostgresEncodable, PostgresDecodable {}

extension EventID: PostgresEncodable, PostgresDecodable {
    public static var postgresType: PostgresType { .text }
    public var postgresValue: PostgresValue { description.postgresValue }
    public static func decode(from cell: PostgresCell) throws -> EventID {
        guard let id = EventID(try String.decode(from: cell)) else { throw cell.mismatch(EventID.self) }
        return id
    }
}

extension DeviceToken: PostgresEncodable, PostgresDecodable, PostgresArrayElement {
    public static var postgresType: PostgresType { .text }
    public var postgresValue: PostgresValue { description.postgresValue }
    public static func decode(from cell: PostgresCell) throws -> DeviceToken { DeviceToken(try String.decode(from: cell)) }
    public static var postgresArrayType: PostgresType { .textArray }
    public static func postgresValue(ofArray array: [DeviceToken]) -> PostgresValue { String.postgresValue(ofArray: array.map(\.description)) }
    public static func decodeArray(from cell: PostgresCell) throws -> [DeviceToken] { try String.decodeArray(from: cell).map(DeviceToken.init) }
}

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

extension CampaignID: PostgresEncodable, PostgresDecodable {}
extension RunID: PostgresEncodable, PostgresDecodable {}
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

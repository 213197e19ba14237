import HeraldCore
import HeraldPostgres

// The domain's string-backed values as bind parameters and row values (HeraldCore knows no SQL).
extension CampaignStatus: PostgresEncodable, PostgresDecodable, PostgresArrayElement {}
extension DeliveryStatus: PostgresEncodable, PostgresDecodable, PostgresArrayElement {}
extension RunStatus: PostgresEncodable, PostgresDecodable, PostgresArrayElement {}
extension Role: PostgresEncodable, PostgresDecodable {}
extension APIKeyScope: PostgresEncodable, PostgresDecodable {}
extension AuditAction: PostgresEncodable {}

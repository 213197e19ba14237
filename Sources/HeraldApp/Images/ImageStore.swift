import Foundation
import HeraldCore
import HeraldPostgres

/// The SQL of uploaded images. An image is named by the SHA-256 of its bytes, so uploading the
/// same file twice stores it once and its URL never changes.
struct ImageStore: Sendable {

    public init() {}

    /// Stores checked bytes (see `ImageInspector`) and answers their public path.
    public func save(_ bytes: [UInt8], _ inspected: ImageInspector.Inspected, uploadedBy: String?,
                     on connection: PostgresConnection) throws -> StoredImage {
        let rows = try connection.query("""
            INSERT INTO images (sha256, content_type, bytes, width, height, uploaded_by)
            VALUES (encode(sha256(\(bytes)), 'hex'), \(inspected.kind.contentType), \(bytes), \(inspected.width), \(inspected.height), \(uploadedBy))
            ON CONFLICT (sha256) DO UPDATE SET sha256 = EXCLUDED.sha256
            RETURNING sha256
            """)
        let sha = try rows.map { try $0.decode(String.self, at: 0) }[0]
        return StoredImage(sha256: sha, kind: inspected.kind, width: inspected.width, height: inspected.height)
    }

    /// Up to `limit` images, newest first, after the one named `after` (its SHA-256); nil when
    /// `after` names no image.
    public func list(after: String?, limit: Int, on connection: PostgresConnection) throws -> [ListedImage]? {
        if let after, try connection.query("SELECT 1 FROM images WHERE sha256 = \(after)").isEmpty { return nil }
        return try connection.query("""
            SELECT sha256, content_type, width, height, octet_length(bytes) AS bytes, uploaded_by, created_at FROM images
            WHERE \(after)::text IS NULL OR (created_at, sha256) < (SELECT created_at, sha256 FROM images WHERE sha256 = \(after))
            ORDER BY created_at DESC, sha256 DESC LIMIT \(limit)
            """).map { row in
            let (sha, type, width, height, bytes, by, created) = try row.decode((String, String, Int, Int, Int, String?, Date).self, columns: "sha256", "content_type", "width", "height", "bytes", "uploaded_by", "created_at")
            let kind = ImageInspector.Kind.allCases.first { $0.contentType == type } ?? .png
            return ListedImage(stored: StoredImage(sha256: sha, kind: kind, width: width, height: height), bytes: bytes, uploadedBy: by, createdAt: created)
        }
    }

    /// The bytes and content type of an image, if stored under this name and kind.
    public func load(sha256: String, kind: ImageInspector.Kind, on connection: PostgresConnection) throws -> [UInt8]? {
        guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        let rows = try connection.query("""
            SELECT bytes FROM images WHERE sha256 = \(sha256) AND content_type = \(kind.contentType)
            """)
        return try rows.map { try $0.decode([UInt8].self, at: 0) }.first
    }
}

/// An uploaded image as stored: its hash names it, its kind gives the extension.
public struct StoredImage: Sendable, Equatable {
    public var sha256: String
    public var kind: ImageInspector.Kind
    public var width: Int
    public var height: Int

    /// The stable public path, ending in the real extension.
    public var path: String { "/images/\(sha256).\(kind.fileExtension)" }
}

/// An image as the list shows it.
public struct ListedImage: Sendable, Equatable {
    public var stored: StoredImage
    public var bytes: Int
    public var uploadedBy: String?
    /// When it was first uploaded.
    public var createdAt: Date
}

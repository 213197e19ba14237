import HeraldCore

/// Uploaded notification images: checked by content, stored once by their SHA-256, served to
/// devices without credentials.
public struct ImageService: Sendable {
    let database: Database
    let images = ImageStore()

    public init(database: Database) { self.database = database }

    /// Checks and stores an upload; a refusal names the limit it broke.
    public func upload(_ bytes: [UInt8], by actor: Actor, field: String = "image_file") throws -> StoredImage {
        switch ImageInspector.inspect(bytes) {
        case .failure(let refusal):
            throw AppError.invalidField(field, refusal.description, code: "invalid_image", title: "The image was refused")
        case .success(let inspected):
            return try database.read { try images.save(bytes, inspected, uploadedBy: actor.name, on: $0) }
        }
    }

    /// A page of the uploaded images, newest first, after `after` (an image's SHA-256); nil when
    /// `after` names no image.
    public func list(after: String?, limit: Int) throws -> [ListedImage]? {
        try database.read { try images.list(after: after, limit: limit, on: $0) }
    }

    /// The bytes of a stored image, by its public file name (`<sha256>.<png|jpg|gif>`).
    public func load(fileName: String) throws -> (bytes: [UInt8], kind: ImageInspector.Kind)? {
        let pieces = fileName.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count == 2, let kind = ImageInspector.Kind(fileExtension: String(pieces[1])) else { return nil }
        return try database.read { try images.load(sha256: String(pieces[0]), kind: kind, on: $0) }.map { ($0, kind) }
    }
}

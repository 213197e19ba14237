/// Checks an uploaded image by its content, never its file name: the magic bytes must say PNG,
/// JPEG or GIF, and the header must decode to a width and a height.
public enum ImageInspector {
    /// 300 KB, as 300 × 1024 bytes (the composer's limit; the form says so).
    public static let maximumBytes = 300 * 1024
    /// A device decodes the image into a bitmap of 4 bytes a pixel before showing it: a small file
    /// can declare a huge picture (a 50000 × 50000 PNG header fits in 33 bytes). Each side is
    /// capped at 4096 pixels and the whole at 4 megapixels (16 MB decoded); notification images
    /// show at about 2:1, so 1024 × 512 is plenty.
    public static let maximumSide = 4096
    public static let maximumPixels = 4 * 1024 * 1024

    public enum Kind: String, Sendable, CaseIterable {
        case png, jpeg, gif

        /// The MIME type served with the image.
        public var contentType: String { "image/\(rawValue)" }
        /// The extension of its public URL (Apple requires a real one).
        public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

        public init?(fileExtension: String) {
            guard let kind = Kind.allCases.first(where: { $0.fileExtension == fileExtension }) else { return nil }
            self = kind
        }
    }

    public struct Inspected: Sendable, Equatable {
        public var kind: Kind
        public var width: Int
        public var height: Int
    }

    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case tooLarge(bytes: Int)
        case notAnImage
        case undecodableHeader(Kind)
        case tooManyPixels(width: Int, height: Int)
        /// The header is fine but the file stops before the image's end marker (an upload cut short).
        case truncated(Kind)

        public var description: String {
            switch self {
            case .tooLarge(let bytes):
                "The image is \(kilobytes(bytes)) KB; the limit is 300 KB (307,200 bytes)."
            case .notAnImage:
                "This file is not a PNG, JPEG or GIF image (checked by its content, not its name)."
            case .undecodableHeader(let kind):
                "This file starts like a \(kind.rawValue.uppercased()) image but its header is damaged, so its size cannot be read."
            case .tooManyPixels(let width, let height):
                "The image is \(width) × \(height) pixels; the limit is 4096 pixels a side and 4 megapixels in all (devices decode it whole)."
            case .truncated(let kind):
                "This \(kind.rawValue.uppercased()) image stops before its end: the file was cut short. Upload the whole file."
            }
        }

        func kilobytes(_ bytes: Int) -> String {
            let tenths = (bytes * 10 + 512) / 1024
            return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
        }
    }

    /// The image's kind and size, or why it is refused.
    public static func inspect(_ bytes: [UInt8]) -> Result<Inspected, Refusal> {
        guard bytes.count <= maximumBytes else { return .failure(.tooLarge(bytes: bytes.count)) }
        let kind: Kind
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            kind = .png
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            kind = .jpeg
        } else if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            kind = .gif
        } else {
            return .failure(.notAnImage)
        }
        let size: (Int, Int)? = switch kind {
        case .png: pngSize(bytes)
        case .jpeg: jpegSize(bytes)
        case .gif: gifSize(bytes)
        }
        guard let (width, height) = size, width > 0, height > 0 else { return .failure(.undecodableHeader(kind)) }
        guard width <= maximumSide, height <= maximumSide, width * height <= maximumPixels else {
            return .failure(.tooManyPixels(width: width, height: height))
        }
        guard isComplete(bytes, kind) else { return .failure(.truncated(kind)) }
        return .success(Inspected(kind: kind, width: width, height: height))
    }

    /// Whether the file reaches its format's end: PNG chunks that run exactly to IEND, a JPEG that
    /// ends with EOI, a GIF that ends with its trailer (0x3B).
    static func isComplete(_ b: [UInt8], _ kind: Kind) -> Bool {
        switch kind {
        case .png:
            var offset = 8
            while offset + 12 <= b.count {
                let length = bigEndian(b, offset, 4)
                guard length <= b.count else { return false }
                let next = offset + 12 + length
                if b[(offset + 4)..<(offset + 8)].elementsEqual(Array("IEND".utf8)) { return next == b.count }
                offset = next
            }
            return false
        case .jpeg:
            return b.count >= 4 && b[b.count - 2] == 0xFF && b[b.count - 1] == 0xD9
        case .gif:
            return b.last == 0x3B
        }
    }

    /// The first chunk must be IHDR (PNG §5.6): length 13, then width and height big-endian.
    static func pngSize(_ b: [UInt8]) -> (Int, Int)? {
        guard b.count >= 33, bigEndian(b, 8, 4) == 13, b[12..<16].elementsEqual(Array("IHDR".utf8)) else { return nil }
        return (bigEndian(b, 16, 4), bigEndian(b, 20, 4))
    }

    /// Logical screen width and height, little-endian, after the 6-byte signature.
    static func gifSize(_ b: [UInt8]) -> (Int, Int)? {
        guard b.count >= 13 else { return nil }
        return (Int(b[6]) | Int(b[7]) << 8, Int(b[8]) | Int(b[9]) << 8)
    }

    /// Walks the marker segments to the first start-of-frame (SOF0…SOF15 except DHT, JPG, DAC).
    static func jpegSize(_ b: [UInt8]) -> (Int, Int)? {
        var offset = 2
        while offset + 4 <= b.count {
            guard b[offset] == 0xFF else { return nil }
            let marker = b[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            let length = bigEndian(b, offset + 2, 2)
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard offset + 9 <= b.count else { return nil }
                return (bigEndian(b, offset + 7, 2), bigEndian(b, offset + 5, 2))
            }
            if marker == 0xDA || marker == 0xD9 { return nil }  // scan data or end before any frame header
            offset += 2 + length
        }
        return nil
    }

    static func bigEndian(_ b: [UInt8], _ offset: Int, _ count: Int) -> Int {
        b[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }
}

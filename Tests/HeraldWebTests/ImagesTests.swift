import Foundation
@testable import HeraldCore
import HeraldJSON
import HeraldHTTP
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// Image checks by content, and uploads through the composer's multipart form.
@Suite struct ImageInspectorTests {
    /// A PNG of `total` bytes: signature, IHDR, a private padding chunk, IEND.
    static func png(width: Int = 640, height: Int = 320, total: Int = 2048) -> [UInt8] {
        func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 255), UInt8(value >> 16 & 255), UInt8(value >> 8 & 255), UInt8(value & 255)] }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += be32(13) + Array("IHDR".utf8) + be32(width) + be32(height) + [8, 6, 0, 0, 0] + be32(0)
        let padding = total - bytes.count - 12 - 12
        bytes += be32(padding) + Array("prVt".utf8) + (0..<padding).map { UInt8(truncatingIfNeeded: $0 &* 31) } + be32(0)
        bytes += be32(0) + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
        return bytes
    }

    @Test func aPNGJustUnderTheLimitIsAcceptedWithItsSize() throws {
        let bytes = Self.png(width: 1200, height: 600, total: 299 * 1024)
        let inspected = try ImageInspector.inspect(bytes).get()
        #expect(inspected == ImageInspector.Inspected(kind: .png, width: 1200, height: 600))
        #expect(inspected.kind.fileExtension == "png" && inspected.kind.contentType == "image/png")
    }

    @Test func anImageOverThreeHundredKilobytesIsRefusedWithTheLimitStated() {
        let bytes = Self.png(total: 301 * 1024)
        guard case .failure(let refusal) = ImageInspector.inspect(bytes) else { Issue.record("accepted"); return }
        #expect(refusal == .tooLarge(bytes: 301 * 1024))
        #expect(refusal.description.contains("301 KB") && refusal.description.contains("300 KB"))
        // Exactly 300 × 1024 bytes is still allowed.
        #expect((try? ImageInspector.inspect(Self.png(total: 300 * 1024)).get()) != nil)
    }

    @Test func jpegAndGIFHeadersGiveTheirSize() throws {
        // SOI, an APP0 segment, then SOF0 with height 480 and width 640.
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0]
            + [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0xE0, 0x02, 0x80, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1] + [0xFF, 0xD9]
        #expect(try ImageInspector.inspect(jpeg).get() == .init(kind: .jpeg, width: 640, height: 480))
        let gif: [UInt8] = Array("GIF89a".utf8) + [0x2C, 0x01, 0xC8, 0x00, 0, 0, 0] + [0x3B]
        #expect(try ImageInspector.inspect(gif).get() == .init(kind: .gif, width: 300, height: 200))
    }

    /// A small file may declare a huge picture, or stop short: both are refused before any device
    /// has to decode them.
    @Test func hugeDeclaredSizesAndCutShortFilesAreRefused() {
        #expect(ImageInspector.inspect(Self.png(width: 50_000, height: 50_000)) == .failure(.tooManyPixels(width: 50_000, height: 50_000)))
        #expect(ImageInspector.inspect(Self.png(width: 2_147_483_647, height: 2_147_483_647))
                == .failure(.tooManyPixels(width: 2_147_483_647, height: 2_147_483_647)))
        #expect(ImageInspector.inspect(Self.png(width: 4096, height: 1025)) == .failure(.tooManyPixels(width: 4096, height: 1025)))
        #expect((try? ImageInspector.inspect(Self.png(width: 4096, height: 1024)).get()) != nil)
        // The signature and IHDR alone: 33 bytes that say 640 × 320 and hold no picture.
        #expect(ImageInspector.inspect(Array(Self.png().prefix(33))) == .failure(.truncated(.png)))
        #expect(ImageInspector.inspect(Array(Self.png().dropLast(4))) == .failure(.truncated(.png)))
        let refusal = ImageInspector.Refusal.tooManyPixels(width: 50_000, height: 50_000)
        #expect(refusal.description.contains("4096 pixels a side"))
    }

    @Test func contentDecidesNotTheName() {
        #expect(ImageInspector.inspect(Array("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8)) == .failure(.notAnImage))
        #expect(ImageInspector.inspect(Array("GIF89a".utf8)) == .failure(.undecodableHeader(.gif)))
        // A PNG signature without an IHDR chunk, and a JPEG that reaches its scan without a frame header.
        #expect(ImageInspector.inspect([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 40)) == .failure(.undecodableHeader(.png)))
        #expect(ImageInspector.inspect([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08, 1, 2, 3, 4, 5, 6]) == .failure(.undecodableHeader(.jpeg)))
    }
}

/// Uploads through the composer (signed in) and images served over real sockets.
@Suite(.serialized) final class ImageUploadTests {
    let browser: PagesBrowser
    var herald: TestHerald { browser.harness.herald }

    init() throws { browser = try PagesBrowser(role: .editor) }

    static let fields = [("name", "Upload test"), ("title", "Bild"), ("body", "Hallo"), ("target_kind", "topics"), ("topics", "news"), ("action", "save")]

    @Test func aPNGUnderTheLimitIsStoredAndServedByteForByte() async throws {
        let png = ImageInspectorTests.png(width: 800, height: 400, total: 299 * 1024)
        let saved = browser.postMultipart("/campaigns", Self.fields, file: ("image_file", "photo.bin", png))
        #expect(saved.status == 200)
        let list = try await herald.request("GET", "/api/v1/campaigns")
        let image = try #require(list.json?["items"]?.arrayValue?.first?["notification"]?["image"]?.stringValue)
        // The test server speaks plain HTTP: the URL must be one that loads from it.
        #expect(image.hasPrefix("http://") && image.hasSuffix(".png"))
        let path = String(image[try #require(image.range(of: "/images/")).lowerBound...])
        let served = try await herald.request("GET", path, authenticated: false)
        #expect(served.status == 200)
        #expect(Array(served.data) == png)
        #expect(served.header("Content-Type") == "image/png")
        #expect(served.header("X-Content-Type-Options") == "nosniff")
        #expect(served.header("Cache-Control") == "public, max-age=31536000, immutable")
        // The same bytes under another extension are not served.
        let wrong = try await herald.request("GET", path.replacingOccurrences(of: ".png", with: ".gif"), authenticated: false)
        #expect(wrong.status == 404)
    }

    @Test func anImageOverTheLimitIsRefusedOnTheFormWithEverythingKept() async throws {
        let png = ImageInspectorTests.png(total: 301 * 1024)
        let refused = browser.postMultipart("/campaigns", Self.fields, file: ("image_file", "big.png", png))
        #expect(refused.status == 422)
        let html = refused.text
        #expect(html.contains("The image is 301 KB; the limit is 300 KB"))
        #expect(html.contains("value=\"Upload test\"") && html.contains("value=\"Bild\"") && html.contains(">Hallo</textarea>"))
        let list = try await herald.request("GET", "/api/v1/campaigns")
        #expect(list.json?["items"]?.arrayValue?.isEmpty == true)
    }

    @Test func aFileThatIsNotAnImageIsRefusedWhateverItsName() {
        let refused = browser.postMultipart("/campaigns", Self.fields, file: ("image_file", "cat.png", Array("<html>not an image</html>".utf8)))
        #expect(refused.status == 422)
        #expect(refused.text.contains("not a PNG, JPEG or GIF image"))
    }
}

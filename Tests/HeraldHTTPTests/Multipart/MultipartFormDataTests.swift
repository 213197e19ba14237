import Testing
@testable import HeraldHTTP

@Suite struct MultipartFormDataTests {
    static func body(_ boundary: String, _ parts: [(headers: String, body: [UInt8])]) -> [UInt8] {
        var bytes: [UInt8] = Array("preamble\r\n".utf8)
        for part in parts {
            bytes += Array("--\(boundary)\r\n\(part.headers)\r\n\r\n".utf8) + part.body + Array("\r\n".utf8)
        }
        bytes += Array("--\(boundary)--\r\n".utf8)
        return bytes
    }

    @Test func readsFieldsAndAFileWithBinaryBytes() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0x0D, 0x0A, 0x2D, 0x2D]
        let bytes = Self.body("XyZ", [
            ("Content-Disposition: form-data; name=\"title\"", Array("سلام; \"دنیا\"".utf8)),
            ("Content-Disposition: form-data; name=\"image\"; filename=\"a;b.png\"\r\nContent-Type: image/png", png),
        ])
        let form = try MultipartFormData.parse(bytes, boundary: "XyZ", maxPartBytes: 1024)
        #expect(form.value("title") == "سلام; \"دنیا\"")
        let file = try #require(form.file("image"))
        #expect(file.filename == "a;b.png")
        #expect(file.contentType == "image/png")
        #expect(file.body == png)
    }

    @Test func readsTheBoundaryFromTheContentType() {
        #expect(MultipartFormData.boundary(contentType: "multipart/form-data; boundary=----WebKitFormBoundaryAbc") == "----WebKitFormBoundaryAbc")
        #expect(MultipartFormData.boundary(contentType: "Multipart/Form-Data; charset=utf-8; boundary=\"a b\"") == "a b")
        #expect(MultipartFormData.boundary(contentType: "application/x-www-form-urlencoded") == nil)
        #expect(MultipartFormData.boundary(contentType: "multipart/form-data") == nil)
    }

    @Test func refusesAPartOverTheLimitAndNamesIt() {
        let bytes = Self.body("b", [("Content-Disposition: form-data; name=\"image\"; filename=\"x.png\"", [UInt8](repeating: 7, count: 101))])
        #expect(throws: MultipartFormData.ParseError.partTooLarge(name: "image", limit: 100)) {
            try MultipartFormData.parse(bytes, boundary: "b", maxPartBytes: 100)
        }
        #expect((try? MultipartFormData.parse(bytes, boundary: "b", maxPartBytes: 101)) != nil)
    }

    @Test func refusesTooManyParts() {
        let bytes = Self.body("b", (0..<4).map { ("Content-Disposition: form-data; name=\"f\($0)\"", Array("v".utf8)) })
        #expect(throws: MultipartFormData.ParseError.tooManyParts(limit: 3)) {
            try MultipartFormData.parse(bytes, boundary: "b", maxParts: 3, maxPartBytes: 10)
        }
    }

    @Test func refusesTruncatedOrNamelessBodies() {
        let good = Self.body("b", [("Content-Disposition: form-data; name=\"a\"", Array("1".utf8))])
        // Every truncation that cuts the closing delimiter is an error, never a silently shorter part.
        for cut in 1..<(good.count - 4) {
            #expect(throws: MultipartFormData.ParseError.self) {
                try MultipartFormData.parse(Array(good[..<cut]), boundary: "b", maxPartBytes: 10)
            }
        }
        let nameless = Self.body("b", [("Content-Disposition: form-data", Array("1".utf8))])
        #expect(throws: MultipartFormData.ParseError.self) { try MultipartFormData.parse(nameless, boundary: "b", maxPartBytes: 10) }
    }

    @Test func anEmptyFileInputIsNotAFile() throws {
        let bytes = Self.body("b", [("Content-Disposition: form-data; name=\"image\"; filename=\"\"\r\nContent-Type: application/octet-stream", [])])
        let form = try MultipartFormData.parse(bytes, boundary: "b", maxPartBytes: 10)
        #expect(form.file("image") == nil)
        #expect(form.parts.count == 1)
    }
}

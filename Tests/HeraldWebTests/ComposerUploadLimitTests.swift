import Foundation
import HeraldHTTP
import HeraldCore
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// A phone's photo of a few megabytes posted with the composer, over real sockets to a running
/// Herald (past the server's 1 MiB body limit, which used to answer raw problem+json): the page
/// comes back with the error beside the image field, in the user's language, every other field
/// kept and nothing saved; past the composer's own upload limit, an HTML page in that language.
@Suite(.serialized) final class ComposerUploadLimitTests {
    let browser: PagesBrowser
    var herald: TestHerald { browser.harness.herald }

    init() throws { browser = try PagesBrowser(role: .editor) }

    static let fields = [("name", "Phone photo"), ("title", "Summer sale"), ("body", "Half price until Sunday"),
                         ("target_kind", "topics"), ("topics", "news"), ("action", "review")]

    /// The composer's form as a browser posts it: multipart, the session's cookie and CSRF token.
    func post(_ path: String, image: [UInt8], fields: [(String, String)] = ComposerUploadLimitTests.fields, imageField: String = "image_file") async throws -> TestHerald.Response {
        let boundary = "----HeraldUpload\(UInt32.random(in: 0...UInt32.max))"
        var body: [UInt8] = []
        for (name, value) in [("csrf_token", browser.session.csrf)] + fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(imageField)\"; filename=\"IMG_2041.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
        body += image + Array("\r\n--\(boundary)--\r\n".utf8)
        #expect(body.count > 1 << 20 || image.count < 1 << 20)
        return try await herald.request("POST", path, body: body, headers: [
            "Content-Type": "multipart/form-data; boundary=\(boundary)",
            "Cookie": "\(Authentication.sessionCookie)=\(browser.session.id)",
        ], authenticated: false)
    }

    func chooseLanguage(_ language: Language) {
        let chosen = browser.post("/language", [("language", language.rawValue), ("next", "/campaigns")])
        #expect(chosen.status == 200)
    }

    func savedCampaigns() async throws -> Int? {
        try await herald.request("GET", "/api/v1/campaigns").json?["items"]?.arrayValue?.count
    }

    /// The image field's block of the composer: from its opening tag to the next field's.
    static func imageField(_ html: String) -> String? {
        guard let start = html.range(of: "<div class=\"field when-shown when-notification"),
              let end = html.range(of: "id=\"field-image_url\"", range: start.upperBound..<html.endIndex) else { return nil }
        return String(html[start.lowerBound..<end.lowerBound])
    }

    @Test func aPhotoOfOneAndAHalfMegabytesIsRefusedBesideItsFieldWithTheFormKept() async throws {
        let photo = ImageInspectorTests.png(width: 1200, height: 600, total: 1536 * 1024)
        for path in ["/campaigns"] {
            let answer = try await post(path, image: photo)
            #expect(answer.status == 422)
            #expect(answer.header("Content-Type")?.hasPrefix("text/html") == true)
            let html = String(decoding: answer.data, as: UTF8.self)
            let field = try #require(Self.imageField(html), "no image field in: \(html.prefix(300))")
            #expect(field.contains("invalid\" id=\"field-image_file\""))
            #expect(field.contains("<p class=\"field-error\" id=\"image-file-error\">The image is 1.5 MB; the limit is 300 KB."), "\(field)")
            #expect(html.contains("value=\"Phone photo\"") && html.contains("value=\"Summer sale\"") && html.contains(">Half price until Sunday</textarea>"))
            #expect(html.contains("value=\"news\""))
        }
        #expect(try await savedCampaigns() == 0)
        #expect(try browser.harness.rows("images").isEmpty)
    }

    @Test func aPersianUserReadsTheRefusalInPersian() async throws {
        chooseLanguage(.fa)
        let photo = ImageInspectorTests.png(total: 4300 * 1024)
        let answer = try await post("/campaigns", image: photo)
        #expect(answer.status == 422)
        let html = String(decoding: answer.data, as: UTF8.self)
        let field = try #require(Self.imageField(html))
        #expect(field.contains("حجم تصویر ۴٫۲ مگابایت است؛ حد مجاز ۳۰۰ کیلوبایت است."), "\(field)")
        #expect(html.contains("lang=\"fa\" dir=\"rtl\""))
        #expect(html.contains("value=\"Phone photo\"") && html.contains(">Half price until Sunday</textarea>"))
        #expect(try await savedCampaigns() == 0)
    }

    /// Saving an existing campaign (`POST /campaigns/{id}`) takes the same path.
    @Test func anExistingCampaignKeepsItsSavedVersionWhenThePhotoIsRefused() async throws {
        let created = try await herald.request("POST", "/api/v1/campaigns", json: [
            "name": "Saved before", "notification": ["title": "Before", "body": "Before"], "topics": ["news"],
        ])
        #expect(created.status == 201)
        let id = try #require(created.json?["id"]?.stringValue)
        let answer = try await post("/campaigns/\(id)", image: ImageInspectorTests.png(total: 2 << 20))
        #expect(answer.status == 422)
        let html = String(decoding: answer.data, as: UTF8.self)
        #expect(Self.imageField(html)?.contains("The image is 2 MB; the limit is 300 KB.") == true)
        #expect(html.contains("value=\"Phone photo\""))
        let after = try await herald.request("GET", "/api/v1/campaigns/\(id)")
        #expect(after.json?["name"] == "Saved before")
    }

    /// A journey's send step takes images as the composer does, and refuses a photo the same way.
    @Test func aJourneysSendStepRefusesThePhotoWithTheJourneyKept() async throws {
        var page = browser.get("/journeys/new")
        let exit = try #require(JourneyPagesTests.steps(page).first)
        page = JourneyPagesTests.press(browser, page, "add:start:send", [("name", "Phone journey"), ("entry_event", "signed_up"),
                                                                        ("s\(exit)_name", "done")], at: "/journeys")
        let send = try #require(JourneyPagesTests.steps(page).first)
        let fields = JourneyPagesTests.form(page, [("s\(send)_name", "hello"), ("s\(send)_title", "Welcome!"), ("s\(send)_body", "Glad you are here")])
        let answer = try await post("/journeys", image: ImageInspectorTests.png(total: 1536 * 1024),
                                    fields: fields.map { ($0.name, $0.value) } + [("action", "save")], imageField: "s\(send)_image_file")
        #expect(answer.status == 422)
        let html = String(decoding: answer.data, as: UTF8.self)
        #expect(html.contains("<p class=\"field-error\">The image is 1.5 MB; the limit is 300 KB."), "\(html.prefix(400))")
        #expect(html.contains("value=\"Phone journey\"") && html.contains("value=\"Welcome!\""))
        #expect(try await herald.request("GET", "/api/v1/journeys").json?["items"]?.arrayValue?.isEmpty == true)
    }

    /// Past the composer's own limit nothing of the form is read: the answer is still a page, in
    /// the user's language, never the server's problem+json.
    @Test func anUploadPastTheFormsLimitIsAPageInTheUsersLanguage() async throws {
        chooseLanguage(.fa)
        let answer = try await post("/campaigns", image: [UInt8](repeating: 0x41, count: PostedForm.maximumUploadFormBytes + 1))
        #expect(answer.status == 413)
        #expect(answer.header("Content-Type")?.hasPrefix("text/html") == true)
        let html = String(decoding: answer.data, as: UTF8.self)
        #expect(html.contains("lang=\"fa\" dir=\"rtl\""))
        #expect(html.contains("فایل بارگذاری‌شده بیش از حد بزرگ است"))
        #expect(html.contains("۱۶ مگابایت") && html.contains("۳۰۰ کیلوبایت"))
        #expect(!html.contains("about:blank"))
        #expect(try await savedCampaigns() == 0)
    }

    /// Without a session the form is not read past the server's limit: the answer would be the
    /// sign-in page whatever it holds.
    @Test func aFormWithoutASessionIsNotReadPastTheServersLimit() async throws {
        let boundary = "----HeraldUpload"
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"image_file\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
        body += ImageInspectorTests.png(total: 1536 * 1024) + Array("\r\n--\(boundary)--\r\n".utf8)
        let answer = try await herald.request("POST", "/campaigns", body: body, headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"],
                                              authenticated: false)
        #expect(answer.status == 413)
        #expect(try await savedCampaigns() == 0)
    }

    /// The API keeps its JSON: an upload there past the server's body limit is problem+json.
    @Test func theImagesAPIKeepsItsProblemJSON() async throws {
        let answer = try await herald.request("POST", "/api/v1/images", body: ImageInspectorTests.png(total: 1536 * 1024),
                                              headers: ["Content-Type": "image/png"])
        #expect(answer.status == 413)
        #expect(answer.header("Content-Type") == "application/problem+json")
    }

    @Test func sizesReadAsAPersonReadsThem() {
        let en = Localized(language: .en), fa = Localized(language: .fa)
        #expect(en.fileSize(301 * 1024) == "301 KB" && en.fileSize(1536 * 1024) == "1.5 MB" && en.fileSize(2 << 20) == "2 MB")
        #expect(fa.fileSize(300 * 1024) == "۳۰۰ کیلوبایت" && fa.fileSize(4300 * 1024) == "۴٫۲ مگابایت")
        #expect(ImageUpload.tooLarge(ImageInspector.maximumBytes, words: en) == nil)
        #expect(ImageUpload.tooLarge(ImageInspector.maximumBytes + 1, words: en)?.hasPrefix("The image is 300 KB; the limit is 300 KB") == true)
    }
}

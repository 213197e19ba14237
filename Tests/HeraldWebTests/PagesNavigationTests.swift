import HeraldHTTP
import Testing
@testable import HeraldApp
@testable import HeraldWeb

/// The top bar offers what the signed-in person may open: admins see users, keys and the audit log.
@Suite struct PagesNavigationTests {
    @Test func adminLinksShowForAdminsOnly() throws {
        let admin = try PagesBrowser(role: .admin).get("/campaigns")
        let editor = try PagesBrowser(role: .editor).get("/campaigns")
        #expect(admin.status == 200 && editor.status == 200)
        let adminPage = String(decoding: admin.body, as: UTF8.self)
        let editorPage = String(decoding: editor.body, as: UTF8.self)
        for link in [#"href="/users""#, #"href="/api-keys""#, #"href="/audit""#] {
            #expect(adminPage.contains(link), "an admin should see \(link)")
            #expect(!editorPage.contains(link), "an editor should not see \(link)")
        }
    }
}

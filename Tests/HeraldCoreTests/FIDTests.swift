import FCMMessage
import Foundation
import HeraldJSON
import Testing
@testable import HeraldCore

/// Devices by Firebase installation ID: the shape of an FID, a device document of kind `fid`, the
/// `fid` target in every message a device plan renders (exported for the strict FCM check), a
/// moved device's bucket, and the kind through an export and back.
@Suite struct FIDTests {
    static let fid = "cK7xQ2mZ_p-Lw3Rt9YbVnA"

    @Test func anInstallationIDHasTheShapeFirebaseGivesIt() {
        #expect(InstallationID.problem(Self.fid) == nil)
        #expect(InstallationID.problem("fAAAAAAAAAAAAAAAAAAAAA") == nil)
        #expect(InstallationID.problem("") == "is empty")
        #expect(InstallationID.problem("cAbC123") == "has 7 characters, not 22")
        #expect(InstallationID.problem("aK7xQ2mZ_p-Lw3Rt9YbVnA") == "starts with \"a\", not c, d, e or f")
        #expect(InstallationID.problem("cK7xQ2mZ_p-Lw3Rt9YbV:A") == "holds \":\"")
        #expect(InstallationID.problem("cK7xQ2mZ p-Lw3Rt9YbVnA") == "holds a space")
    }

    @Test func aDeviceDocumentSaysItsKindAndItsIdentifierIsCheckedByIt() throws {
        guard case .success(let device) = Device.parse(["platform": "android", "kind": "fid"], token: Self.fid) else {
            Issue.record("refused"); return
        }
        #expect(device.kind == .fid && device.target == .fid(Self.fid))
        guard case .success(let byToken) = Device.parse(["token": "fcm:APA91b-x", "platform": "ios"]) else { Issue.record("refused"); return }
        #expect(byToken.kind == .token && byToken.target == .token("fcm:APA91b-x"))

        guard case .failure(let errors) = Device.parse(["platform": "android", "kind": "fid"], token: "fcm:APA91b-x") else {
            Issue.record("a token accepted as an FID"); return
        }
        #expect(errors.errors.map(\.path) == ["token"])
        #expect(errors.errors.first?.code == "invalid_fid")
        #expect(errors.errors.first?.message.contains("installation ID (kind fid)") == true)

        guard case .failure(let unknown) = Device.parse(["platform": "android", "kind": "iid"], token: Self.fid) else {
            Issue.record("an unknown kind accepted"); return
        }
        #expect(unknown.errors.map(\.path) == ["kind"])
        #expect(unknown.errors.first?.message.contains("found \"iid\"") == true)
    }

    /// Every request of a plan to an FID device names it by `fid` and never by `token`, whether
    /// spliced (plain or personalised) or rendered in full, byte for byte the full render; each is
    /// exported so that `deploy/tests/check-fcm-discovery` checks FID bodies against Google's document.
    @Test func anFIDDeviceIsSentWithTheFIDTargetOnEveryPathOfThePlanner() throws {
        var plain = AudienceTests.abCampaign(holdout: 0)
        plain.notification = NotificationContent(title: "Sale", body: "Today")
        plain.options.iosSound = "chime.caf"
        plain.options.webLink = "https://example.com/sale"
        let personal = AudienceTests.abCampaign(holdout: 0)
        let sendTime = Date(timeIntervalSince1970: 1_800_000_000)
        for campaign in [plain, personal] {
            let planner = DevicePlanner(campaign: campaign, campaignID: "c-fid", sendTime: sendTime)
            for (index, name) in ["Sara", String(repeating: "ب", count: 3000), ""].enumerated() {
                let fid = "d" + String(format: "%021d", index)
                let device = Device(token: fid, kind: .fid, platform: .android, properties: name.isEmpty ? [:] : ["first_name": name])
                let request = try #require(planner.request(for: device))
                guard let body = request.body else {
                    #expect(request.failure?.contains("4096") == true)
                    continue
                }
                let message = try Message.fromJSON(try JSON.parse(body))
                _ = exported(message)
                #expect(message.target == .fid(fid))
                #expect(try JSON.parse(body)["token"] == nil)
                let variant = try #require(planner.variant(for: device))
                let full = Renderer.render(campaign: campaign, variant: variant.localized(nil).personalized(for: device), target: .fid(fid),
                                           campaignID: "c-fid", sendTime: sendTime)
                #expect(body == full.json().serializedString())
            }
        }
    }

    /// A device moved to its FID keeps the bucket its token gave it, in every campaign.
    @Test func aMovedDeviceKeepsItsBucket() {
        let planner = DevicePlanner(campaign: AudienceTests.abCampaign(), campaignID: "c1", sendTime: Date(timeIntervalSince1970: 0))
        for index in 0..<500 {
            let token = "device-\(index)"
            let before = Device(token: token, platform: .android)
            let after = Device(token: "e" + String(format: "%021d", index), kind: .fid, platform: .android, bucketKey: token)
            #expect(planner.variant(for: after)?.key == planner.variant(for: before)?.key)
        }
    }

    @Test func theKindGoesOutInAnExportAndComesBackInAnImport() throws {
        let device = Device(token: Self.fid, kind: .fid, platform: .web, language: "de", properties: ["city": "Berlin"])
        let header = DeviceCSVLayout.exportHeader(properties: ["city"])
        #expect(header.prefix(3) == ["token", "kind", "platform"])
        let row = DeviceCSVLayout.exportRow(device, properties: ["city"])
        let layout = try DeviceCSVLayout.header(header).get()
        let fields = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard case .success(let back) = Device.parse(layout.document(fields)) else { Issue.record("refused"); return }
        #expect(back == device)
    }
}

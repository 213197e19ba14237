import Foundation
import HeraldJSON
import Testing
@testable import HeraldCore

/// The pure rules of the contact policy: what caps a document sets, which categories are names,
/// which devices the control group holds, and what a plan leaves out.
@Suite struct ContactPolicyRulesTests {
    @Test func capsAreReadWithEveryProblemNamedByItsPath() throws {
        let caps = try FrequencyCaps.parse(["marketing": ["hour": 1, "day": 2], "categories": ["promotions": ["week": 3], "news": [:]]]).get()
        #expect(caps.marketing == FrequencyCaps.Limits(hour: 1, day: 2))
        // A category without a cap is no category of the caps.
        #expect(caps.categories == ["promotions": FrequencyCaps.Limits(week: 3)])
        #expect(caps.memorySeconds == 7 * 86_400)
        #expect(FrequencyCaps().isEmpty && FrequencyCaps().memorySeconds == nil)
        #expect(try FrequencyCaps.parse(caps.toJSON()).get() == caps)

        guard case .failure(let errors) = FrequencyCaps.parse(["marketing": ["day": 0, "month": 3], "categories": ["Promo Ads": ["hour": 1]], "other": 1]) else {
            Issue.record("refused caps were accepted")
            return
        }
        #expect(Set(errors.errors.map(\.path)) == ["marketing.day", "marketing.month", "categories.Promo Ads", "other"], "\(errors.errors.map(\.path))")
        #expect(errors.errors.first { $0.path == "marketing.day" }?.message.contains("1 to 1000") == true)
    }

    @Test func categoriesAreLowerCaseNames() {
        #expect(CampaignCategory.problem("promotions") == nil && CampaignCategory.problem("news-2") == nil && CampaignCategory.problem("a_b") == nil)
        for bad in ["", "Promotions", "-news", "news!", "نوروز", String(repeating: "a", count: 41)] {
            #expect(CampaignCategory.problem(bad) != nil, "\(bad)")
        }
    }

    @Test func theControlGroupIsStableSaltedAndOfItsShare() {
        let group = ControlGroup(basisPoints: 1000, salt: "project-salt")
        let keys = (0..<20_000).map { "device-\($0)" }
        let members = keys.filter(group.contains)
        // About 10 %, the same devices every time, other devices under another salt.
        #expect((1700...2300).contains(members.count), "\(members.count)")
        #expect(keys.filter(group.contains) == members)
        let reshuffled = keys.filter(ControlGroup(basisPoints: 1000, salt: "another").contains)
        #expect(Set(reshuffled).intersection(members).count < members.count / 4)
        // A larger share keeps every member of a smaller one: growing the group moves no one out.
        #expect(Set(keys.filter(ControlGroup(basisPoints: 2000, salt: "project-salt").contains)).isSuperset(of: members))
        #expect(keys.filter(ControlGroup(basisPoints: 0, salt: "project-salt").contains).isEmpty)
    }

    @Test func aPlanLeavesOutQuietDevicesAndTheControlGroupButNotFromTransactionalMessages() {
        var spec = AudienceTests.abCampaign(holdout: 0)
        spec.delivery.category = "promotions"
        var planner = DevicePlanner(campaign: spec, campaignID: "c1", sendTime: Date(timeIntervalSince1970: 0))
        let quiet = Device(token: "quiet-1", platform: .android, quietCategories: ["promotions"])
        let loud = Device(token: "loud-1", platform: .android, quietCategories: ["news"])
        #expect(planner.request(for: quiet) == nil && planner.skip(of: quiet) == .quietCategory)
        #expect(planner.request(for: loud) != nil && planner.skip(of: loud) == nil)

        let group = ControlGroup(basisPoints: 2500, salt: "s")
        let member = (0..<100).map { Device(token: "d-\($0)", platform: .android) }.first { group.contains($0.token) }!
        planner.controlGroup = group
        #expect(planner.request(for: member) == nil && planner.skip(of: member) == .controlGroup)
        // A device moved to its FID keeps its membership: the group hashes the token it moved from.
        let moved = Device(token: "cFIDofTheMovedDevice01", kind: .fid, platform: .android, bucketKey: member.token)
        #expect(planner.skip(of: moved) == .controlGroup)
        // A transactional message reaches the group, never a quiet category.
        spec.delivery.transactional = true
        var transactional = DevicePlanner(campaign: spec, campaignID: "c1", sendTime: Date(timeIntervalSince1970: 0))
        transactional.controlGroup = group
        #expect(transactional.request(for: member) != nil)
        #expect(transactional.request(for: quiet) == nil)
    }

    @Test func aCSVCellListsQuietCategories() throws {
        let layout = try DeviceCSVLayout.header(["token", "platform", "quiet_categories"]).get()
        let document = layout.document(["tok-1", "android", "promotions; news,promotions"])
        guard case .success(let device) = Device.parse(document) else { Issue.record("the row was refused"); return }
        #expect(device.quietCategories == ["news", "promotions"])
        guard case .failure(let errors) = Device.parse(["token": "tok-2", "platform": "android", "quiet_categories": ["Sales!"]]) else {
            Issue.record("a bad category was accepted")
            return
        }
        #expect(errors.errors.map(\.path) == ["quiet_categories[0]"])
        #expect(DeviceCSVLayout.exportRow(device, properties: []).hasSuffix(",news promotions,"))  // no Live Activity token after it
    }
}

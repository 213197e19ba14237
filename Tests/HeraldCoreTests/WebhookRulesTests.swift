import FCMMessage
import HeraldJSON
import HeraldCore
import Testing

@Suite struct WebhookRulesTests {
    @Test func anEndpointURLIsAnAbsoluteHTTPURLWithoutCredentials() {
        #expect(WebhookEndpointRules.problem(url: "https://crm.example.com/hooks/herald?team=growth") == nil)
        #expect(WebhookEndpointRules.problem(url: "http://hooks.example.com:8080/hook") == nil)
        #expect(WebhookEndpointRules.problem(url: "http://[2001:db8::1]:8080/hook")?.hasPrefix("must be https://host") == true)
        #expect(WebhookEndpointRules.problem(url: "https://bücher.example/")?.hasPrefix("must be https://host") == true)
        #expect(WebhookEndpointRules.problem(url: "ftp://example.com/") == "must start with https:// (or http://)")
        #expect(WebhookEndpointRules.problem(url: "https://user:pass@example.com/") == "must not contain a user name or password")
        #expect(WebhookEndpointRules.problem(url: "https:///path") == "must name a host")
        #expect(WebhookEndpointRules.problem(url: "https://example.com/a b") == "must not contain spaces or control characters")
        #expect(WebhookEndpointRules.problem(url: "https://example.com/#top") == "must not contain a fragment (#…)")
        #expect(WebhookEndpointRules.problem(url: "https://example.com/" + String(repeating: "a", count: 2000)) == "must be at most 2000 characters")
        #expect(WebhookEndpointRules.problem(events: []) == "must name at least one event")
        #expect(WebhookEndpointRules.problem(events: ["run.finished", "run.exploded"])?.hasPrefix("has an unknown event “run.exploded”") == true)
    }

    @Test func timesAreWrittenInUTCWithMicroseconds() {
        #expect(RFC3339.utc(secondsSince1970: 0) == "1970-01-01T00:00:00.000000Z")
        #expect(RFC3339.utc(secondsSince1970: 1_795_652_063.123456) == "2026-11-26T00:14:23.123456Z")
        #expect(RFC3339.utc(secondsSince1970: -1.5) == "1969-12-31T23:59:58.500000Z")
        #expect(RFC3339.offsetMinutes(RFC3339.utc(secondsSince1970: 1_795_652_063)) == 0)
    }
}

@Suite struct LabelBudgetRulesTests {
    @Test func automaticLabellingKeepsAShareForLateCampaignsAndNeverPassesTheLimit() {
        // Four variants: per variant while the day stays within 80, then one for the campaign, then none.
        #expect(LabelBudget.resolve(.auto, variants: 4, used: 76, addedPerVariant: 4, addedPerCampaign: 1) == .perVariant)
        #expect(LabelBudget.resolve(.auto, variants: 4, used: 77, addedPerVariant: 4, addedPerCampaign: 1) == .perCampaign)
        #expect(LabelBudget.resolve(.auto, variants: 4, used: 99, addedPerVariant: 4, addedPerCampaign: 1) == .perCampaign)
        #expect(LabelBudget.resolve(.auto, variants: 4, used: 100, addedPerVariant: 4, addedPerCampaign: 1) == .unlabelled)
        // Labels sent earlier today cost nothing again (a recurring campaign's second run).
        #expect(LabelBudget.resolve(.auto, variants: 4, used: 100, addedPerVariant: 0, addedPerCampaign: 1) == .perVariant)
        // One variant: its one label fits until the day is full.
        #expect(LabelBudget.resolve(.auto, variants: 1, used: 99, addedPerVariant: 1, addedPerCampaign: 1) == .perVariant)
        // What a campaign chose is kept; the review page warns when it passes the limit.
        #expect(LabelBudget.resolve(.perVariant, variants: 4, used: 99, addedPerVariant: 4, addedPerCampaign: 1) == .perVariant)
        #expect(LabelBudget.passesLimit(used: 97, added: 4) && !LabelBudget.passesLimit(used: 96, added: 4))
    }

    @Test func theLabelFollowsTheMode() throws {
        let spec = try CampaignSpec.parse(try JSON.parse(#"""
            {"name": "n", "notification": {"title": "t"}, "topics": ["news"], "variants": [{"key": "A", "weight": 1}, {"key": "B", "weight": 1}]}
            """#)).get()
        let id = "3f0c1a52-9d7e-4b8a-a1f2-0e5c7d9b1234"
        func label(_ mode: LabelMode?, explicit: String? = nil) -> String? {
            var labelled = spec
            labelled.options.labels = mode
            labelled.options.analyticsLabel = explicit
            return Renderer.analyticsLabel(campaign: labelled, variantKey: "B", campaignID: id)
        }
        #expect(label(nil) == "herald-\(id)-B" && label(.auto) == "herald-\(id)-B" && label(.perVariant) == "herald-\(id)-B")
        #expect(label(.perCampaign) == "herald-\(id)")
        #expect(label(.unlabelled) == nil && label(.unlabelled, explicit: "spring") == nil)
        #expect(label(.perVariant, explicit: "spring") == "spring-B" && label(.perCampaign, explicit: "spring") == "spring")
    }
}

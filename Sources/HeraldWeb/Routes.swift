import HeraldApp
import HeraldHTTP

/// Every route of Herald, with its access rule beside it — the only place a route is added (a
/// test fails on any other). Read a line as: method, path, who may call it, what answers.
/// A route that waits on something other than a short database query (FCM, Google's Instance ID
/// API, password hashing, a large file) says `.onSlowHandlers()`, so it cannot hold the few
/// threads that answer everything else.
enum Routes {
    static func table(_ h: Handlers, settings: WebSettings) -> RouteTable<Route> {
        var t = RouteTable<Route>()

        // Health, metrics and files: public on purpose (see HealthAPI, MetricsAPI, StaticFiles).
        t.add(.get, "/healthz", Route.api(.open, h.health.live).onEventLoop())
        t.add(.get, "/readyz", .api(.open, h.health.ready))
        t.add(.get, "/metrics", .raw(.open, h.metrics.scrape))
        t.add(.get, "/static/{path...}", .raw(.open, h.files.staticFile))
        t.add(.get, "/api/v1/openapi.json", .raw(.open, h.files.openAPIDocument))
        // Devices fetch notification images without credentials.
        t.add(.get, "/images/{file}", .raw(.open, h.images.serve))

        // Signing in and out.
        t.add(.get, "/sign-in", .page(.open, h.signIn.form))
        t.add(.post, "/sign-in", .page(.open, h.signIn.signIn).onSlowHandlers())
        t.add(.post, "/sign-out", .page(.page(.viewer), h.signIn.signOut))
        // The language of the pages, for the signed-in user (the switcher in every page's top bar).
        t.add(.post, "/language", .page(.page(.viewer), h.language.choose))

        // The campaigns API.
        t.add(.post, "/api/v1/campaigns", .api(.api(.editor), h.campaignsAPI.create))
        t.add(.get, "/api/v1/campaigns", .api(.api(.viewer), h.campaignsAPI.list))
        t.add(.get, "/api/v1/campaigns/{id}", .api(.api(.viewer), h.campaignsAPI.get))
        t.add(.put, "/api/v1/campaigns/{id}", .api(.api(.editor), h.campaignsAPI.replace))
        t.add(.patch, "/api/v1/campaigns/{id}", .api(.api(.editor), h.campaignsAPI.patch))
        t.add(.delete, "/api/v1/campaigns/{id}", .api(.api(.editor), h.campaignsAPI.delete))
        t.add(.post, "/api/v1/campaigns/{id}/schedule", .api(.api(.publisher), h.lifecycleAPI.schedule))
        t.add(.post, "/api/v1/campaigns/{id}/cancel", .api(.api(.publisher), h.lifecycleAPI.cancel))
        t.add(.post, "/api/v1/campaigns/{id}/duplicate", .api(.api(.editor), h.campaignsAPI.duplicate))
        t.add(.post, "/api/v1/campaigns/{id}/pause", .api(.api(.publisher), h.lifecycleAPI.pause))
        t.add(.post, "/api/v1/campaigns/{id}/resume", .api(.api(.publisher), h.lifecycleAPI.resume))
        t.add(.post, "/api/v1/campaigns/{id}/submit", .api(.api(.editor), h.approvalAPI.submit))
        t.add(.post, "/api/v1/campaigns/{id}/approve", .api(.api(.publisher), h.approvalAPI.approve))
        t.add(.post, "/api/v1/campaigns/{id}/reject", .api(.api(.publisher), h.approvalAPI.reject))
        t.add(.get, "/api/v1/campaigns/{id}/approval", .api(.api(.viewer), h.approvalAPI.show))
        t.add(.post, "/api/v1/campaigns/{id}/send-winner", .api(.api(.publisher), h.winnerAPI.send))
        t.add(.get, "/api/v1/campaigns/{id}/runs", .api(.api(.viewer), h.lifecycleAPI.runs))
        t.add(.get, "/api/v1/campaigns/{id}/deliveries", .api(.api(.viewer), h.lifecycleAPI.deliveries))
        t.add(.get, "/api/v1/campaigns/{id}/report", .raw(.api(.viewer), h.lifecycleAPI.report))
        t.add(.get, "/api/v1/campaigns/{id}/preview", .api(.api(.viewer), h.sendingAPI.preview))
        t.add(.post, "/api/v1/campaigns/{id}/validate", .api(.api(.editor), h.sendingAPI.validate))
        t.add(.post, "/api/v1/campaigns/{id}/test", .api(.api(.editor), h.sendingAPI.test).onSlowHandlers())
        t.add(.get, "/api/v1/journeys", .api(.api(.viewer), h.journeysAPI.list))
        t.add(.post, "/api/v1/journeys", .api(.api(.editor), h.journeysAPI.create))
        t.add(.get, "/api/v1/journeys/{id}", .api(.api(.viewer), h.journeysAPI.get))
        t.add(.put, "/api/v1/journeys/{id}", .api(.api(.editor), h.journeysAPI.replace))
        t.add(.delete, "/api/v1/journeys/{id}", .api(.api(.editor), h.journeysAPI.delete))
        t.add(.post, "/api/v1/journeys/{id}/publish", .api(.api(.publisher), h.journeysAPI.publish))
        t.add(.post, "/api/v1/journeys/{id}/pause", .api(.api(.publisher), h.journeysAPI.pause))
        t.add(.post, "/api/v1/journeys/{id}/resume", .api(.api(.publisher), h.journeysAPI.resume))
        t.add(.post, "/api/v1/journeys/{id}/stop", .api(.api(.publisher), h.journeysAPI.stop))
        t.add(.get, "/api/v1/journeys/{id}/report", .api(.api(.viewer), h.journeysAPI.report))
        t.add(.post, "/api/v1/events", .api(.events, h.eventsAPI.record))
        t.add(.get, "/api/v1/events", .raw(.api(.viewer), h.eventExportAPI.export))
        t.add(.post, "/api/v1/images", .api(.api(.editor), h.imagesAPI.upload).onSlowHandlers())
        t.add(.get, "/api/v1/images", .api(.api(.viewer), h.imagesAPI.list))

        // Audiences: devices (the apps' backends register them) and segments over them.
        t.add(.get, "/api/v1/devices", .api(.api(.viewer), h.devicesAPI.list))
        t.add(.put, "/api/v1/devices/{token}", .api(.devices, h.devicesAPI.put))
        t.add(.get, "/api/v1/devices/{token}", .api(.api(.viewer), h.devicesAPI.get))
        t.add(.delete, "/api/v1/devices/{token}", .api(.devices, h.devicesAPI.delete))
        t.add(.post, "/api/v1/devices/{token}/move-to-fid", .api(.devices, h.devicesAPI.moveToFID))
        t.add(.get, "/api/v1/devices/{token}/topics", .api(.api(.viewer), h.devicesAPI.topics).onSlowHandlers())
        t.add(.get, "/api/v1/device-counts", .api(.api(.viewer), h.devicesAPI.counts))
        t.add(.post, "/api/v1/device-imports", .api(.devices, h.devicesAPI.importDevices).streamingBody(upTo: settings.maxImportBytes).onSlowHandlers())
        t.add(.get, "/api/v1/device-export", .raw(.api(.viewer), h.devicesAPI.export).onSlowHandlers())
        t.add(.get, "/api/v1/segments", .api(.api(.viewer), h.segmentsAPI.list))
        t.add(.post, "/api/v1/segments", .api(.api(.editor), h.segmentsAPI.create))
        t.add(.get, "/api/v1/segments/{id}", .api(.api(.viewer), h.segmentsAPI.get))
        t.add(.put, "/api/v1/segments/{id}", .api(.api(.editor), h.segmentsAPI.replace))
        t.add(.delete, "/api/v1/segments/{id}", .api(.api(.editor), h.segmentsAPI.delete))
        t.add(.post, "/api/v1/segment-reach", .api(.api(.viewer), h.segmentsAPI.reach))
        t.add(.post, "/api/v1/sends", .api(.sends, h.sendsAPI.send))
        t.add(.get, "/api/v1/sends/{id}", .api(.sends, h.sendsAPI.get))
        t.add(.post, "/api/v1/delivery-data/refresh", .api(.api(.publisher), h.deliveryDataAPI.refresh).onSlowHandlers())
        t.add(.post, "/api/v1/topic-subscriptions", .api(.api(.publisher), h.devicesAPI.changeTopic).onSlowHandlers())
        t.add(.get, "/api/v1/topic-subscriptions/{id}", .api(.api(.viewer), h.devicesAPI.topicJob))
        t.add(.post, "/api/v1/time-zone-topics", .api(.api(.publisher), h.devicesAPI.assignTimeZoneTopics))

        // Accounts API: `me` for anyone signed in, the rest for admins.
        t.add(.get, "/api/v1/me", .api(.api(.viewer), h.accountsAPI.me))
        t.add(.get, "/api/v1/users", .api(.api(.admin), h.accountsAPI.listUsers))
        t.add(.post, "/api/v1/users", .api(.api(.admin), h.accountsAPI.createUser).onSlowHandlers())
        t.add(.patch, "/api/v1/users/{id}", .api(.api(.admin), h.accountsAPI.updateUser).onSlowHandlers())
        t.add(.get, "/api/v1/api-keys", .api(.api(.admin), h.accountsAPI.listKeys))
        t.add(.post, "/api/v1/api-keys", .api(.api(.admin), h.accountsAPI.createKey))
        t.add(.delete, "/api/v1/api-keys/{id}", .api(.api(.admin), h.accountsAPI.revokeKey))
        t.add(.get, "/api/v1/audit", .api(.api(.admin), h.accountsAPI.listAudit))

        // Webhooks: admins register endpoints; the dispatcher posts to them.
        t.add(.get, "/api/v1/test-devices", .api(.api(.viewer), h.testDevicesAPI.list))
        t.add(.put, "/api/v1/test-devices/{token}", .api(.api(.admin), h.testDevicesAPI.put))
        t.add(.delete, "/api/v1/test-devices/{token}", .api(.api(.admin), h.testDevicesAPI.delete))
        t.add(.get, "/api/v1/frequency-caps", .api(.api(.viewer), h.contactPolicyAPI.caps))
        t.add(.put, "/api/v1/frequency-caps", .api(.api(.admin), h.contactPolicyAPI.replaceCaps))
        t.add(.get, "/api/v1/control-group", .api(.api(.viewer), h.contactPolicyAPI.controlGroup))
        t.add(.put, "/api/v1/control-group", .api(.api(.admin), h.contactPolicyAPI.replaceControlGroup))
        t.add(.get, "/api/v1/control-group/report", .api(.api(.viewer), h.contactPolicyAPI.report).onSlowHandlers())
        t.add(.get, "/api/v1/webhooks", .api(.api(.admin), h.webhooksAPI.list))
        t.add(.post, "/api/v1/webhooks", .api(.api(.admin), h.webhooksAPI.create))
        t.add(.get, "/api/v1/webhooks/{id}", .api(.api(.admin), h.webhooksAPI.get))
        t.add(.delete, "/api/v1/webhooks/{id}", .api(.api(.admin), h.webhooksAPI.delete))
        t.add(.get, "/api/v1/webhooks/{id}/deliveries", .api(.api(.admin), h.webhooksAPI.deliveries))
        t.add(.post, "/api/v1/webhooks/{id}/deliveries/{delivery}/redeliver", .api(.api(.admin), h.webhooksAPI.redeliver))

        // The composer's pages.
        t.add(.get, "/", .page(.page(.viewer)) { _ in PageRenderer.redirect(to: "/campaigns") })
        t.add(.get, "/campaigns", .page(.page(.viewer), h.campaignPages.list))
        t.add(.get, "/campaigns/new", .page(.page(.editor), h.campaignPages.new))
        t.add(.post, "/campaigns", .page(.page(.editor), h.campaignPages.save).takingUploads())
        t.add(.post, "/composer/budget", .page(.page(.editor), h.campaignPages.budget))
        for action in CampaignAction.allCases {
            let route = Route.page(action.access, h.campaignPages.handler(for: action))
            let withUploads = action == .save ? route.takingUploads() : route
            t.add(action.method, action.pattern, action.waitsOnFCM ? withUploads.onSlowHandlers() : withUploads)
        }
        t.add(.get, "/campaigns/{id}/review", .page(.page(.viewer), h.campaignPages.review))
        t.add(.get, "/campaigns/{id}/report", .page(.page(.viewer), h.campaignPages.report))
        t.add(.get, "/campaigns/{id}/report.csv", .page(.page(.viewer), h.campaignPages.reportCSV))

        // Journey pages: marketers build and save, publishers publish, pause, resume and stop (as the API).
        t.add(.get, "/journeys", .page(.page(.viewer), h.journeyPages.list))
        t.add(.get, "/journeys/new", .page(.page(.editor), h.journeyPages.new))
        t.add(.post, "/journeys", .page(.page(.editor), h.journeyPages.save).takingUploads())
        t.add(.get, "/journeys/{id}", .page(.page(.viewer), h.journeyPages.show))
        t.add(.post, "/journeys/{id}", .page(.page(.editor), h.journeyPages.save).takingUploads())
        t.add(.post, "/journeys/{id}/publish", .page(.page(.publisher), h.journeyPages.publish))
        t.add(.post, "/journeys/{id}/pause", .page(.page(.publisher), h.journeyPages.pause))
        t.add(.post, "/journeys/{id}/resume", .page(.page(.publisher), h.journeyPages.resume))
        t.add(.post, "/journeys/{id}/stop", .page(.page(.publisher), h.journeyPages.stop))

        // Audience pages.
        t.add(.get, "/devices", .page(.page(.viewer), h.audiencePages.devicesPage))
        t.add(.get, "/devices/{token}/topics", .page(.page(.viewer), h.audiencePages.deviceTopicsPage).onSlowHandlers())
        t.add(.post, "/devices/import", .page(.page(.editor), h.audiencePages.importDevices).streamingBody(upTo: settings.maxImportBytes).onSlowHandlers())
        t.add(.get, "/segments", .page(.page(.viewer), h.audiencePages.segmentsPage))
        t.add(.post, "/segments", .page(.page(.editor), h.audiencePages.createSegment))
        t.add(.get, "/segments/{id}", .page(.page(.viewer), h.audiencePages.segmentPage))
        t.add(.post, "/segments/{id}", .page(.page(.editor), h.audiencePages.updateSegment))
        t.add(.post, "/segments/{id}/delete", .page(.page(.editor), h.audiencePages.deleteSegment))
        t.add(.post, "/segment-editor/reach", .page(.page(.viewer), h.audiencePages.liveReach))

        // Admin pages.
        t.add(.get, "/users", .page(.page(.admin), h.accountsPages.users))
        t.add(.post, "/users", .page(.page(.admin), h.accountsPages.createUser).onSlowHandlers())
        t.add(.post, "/users/{id}", .page(.page(.admin), h.accountsPages.updateUser).onSlowHandlers())
        t.add(.get, "/api-keys", .page(.page(.admin), h.accountsPages.keys))
        t.add(.post, "/api-keys", .page(.page(.admin), h.accountsPages.createKey))
        t.add(.post, "/api-keys/{id}/revoke", .page(.page(.admin), h.accountsPages.revokeKey))
        t.add(.get, "/audit", .page(.page(.admin), h.accountsPages.audit))
        t.add(.get, "/contact-policy", .page(.page(.viewer), h.contactPolicyPages.show).onSlowHandlers())
        t.add(.post, "/contact-policy/caps", .page(.page(.admin), h.contactPolicyPages.saveCaps).onSlowHandlers())
        t.add(.post, "/contact-policy/control-group", .page(.page(.admin), h.contactPolicyPages.saveControlGroup).onSlowHandlers())
        t.add(.get, "/webhooks", .page(.page(.admin), h.webhookPages.list))
        t.add(.post, "/webhooks", .page(.page(.admin), h.webhookPages.create))
        t.add(.get, "/webhooks/{id}", .page(.page(.admin), h.webhookPages.log))
        t.add(.post, "/webhooks/{id}/delete", .page(.page(.admin), h.webhookPages.delete))
        t.add(.post, "/webhooks/{id}/deliveries/{delivery}/redeliver", .page(.page(.admin), h.webhookPages.redeliver))
        return t
    }
}

/// The handlers the table names, each over the application's services.
struct Handlers: Sendable {
    let health: HealthAPI
    let metrics: MetricsAPI
    let files: StaticFiles
    let images: ImageRoutes
    let signIn: SignInPages
    let campaignsAPI: CampaignsAPI
    let lifecycleAPI: LifecycleAPI
    let winnerAPI: WinnerAPI
    let approvalAPI: ApprovalAPI
    let sendingAPI: SendingAPI
    let eventsAPI: EventsAPI
    let journeysAPI: JourneysAPI
    let imagesAPI: ImagesAPI
    let devicesAPI: DevicesAPI
    let segmentsAPI: SegmentsAPI
    let accountsAPI: AccountsAPI
    let webhooksAPI: WebhooksAPI
    let contactPolicyAPI: ContactPolicyAPI
    let testDevicesAPI: TestDevicesAPI
    let deliveryDataAPI: DeliveryDataAPI
    let sendsAPI: SendsAPI
    let eventExportAPI: EventExportAPI
    let campaignPages: CampaignPages
    let accountsPages: AccountsPages
    let webhookPages: WebhookPages
    let contactPolicyPages: ContactPolicyPages
    let audiencePages: AudiencePages
    let journeyPages: JourneyPages
    let language: LanguagePages

    init(app: HeraldApplication, settings: WebSettings, pages: PageRenderer) {
        health = HealthAPI(app: app)
        metrics = MetricsAPI(app: app)
        files = StaticFiles(directory: settings.publicDirectory)
        images = ImageRoutes(images: app.images)
        signIn = SignInPages(service: app.signIn, pages: pages, cookieSecure: settings.cookieSecure)
        campaignsAPI = CampaignsAPI(campaigns: app.campaigns, segments: app.segments)
        lifecycleAPI = LifecycleAPI(campaigns: app.campaigns)
        winnerAPI = WinnerAPI(campaigns: app.campaigns)
        approvalAPI = ApprovalAPI(campaigns: app.campaigns)
        sendingAPI = SendingAPI(campaigns: app.campaigns)
        eventsAPI = EventsAPI(events: app.events)
        journeysAPI = JourneysAPI(journeys: app.journeys)
        imagesAPI = ImagesAPI(images: app.images)
        devicesAPI = DevicesAPI(devices: app.devices)
        segmentsAPI = SegmentsAPI(segments: app.segments)
        accountsAPI = AccountsAPI(accounts: app.accounts)
        webhooksAPI = WebhooksAPI(webhooks: app.webhooks)
        contactPolicyAPI = ContactPolicyAPI(policies: app.contactPolicy)
        testDevicesAPI = TestDevicesAPI(testDevices: app.testDevices)
        deliveryDataAPI = DeliveryDataAPI(deliveryData: app.deliveryData)
        sendsAPI = SendsAPI(sends: app.sends)
        eventExportAPI = EventExportAPI(events: app.events)
        campaignPages = CampaignPages(app: app, pages: pages)
        accountsPages = AccountsPages(accounts: app.accounts, pages: pages)
        webhookPages = WebhookPages(webhooks: app.webhooks, pages: pages)
        contactPolicyPages = ContactPolicyPages(policies: app.contactPolicy, pages: pages)
        audiencePages = AudiencePages(devices: app.devices, segments: app.segments, pages: pages)
        journeyPages = JourneyPages(journeys: app.journeys, images: app.images, segments: app.segments, pages: pages)
        language = LanguagePages(accounts: app.accounts)
    }
}

import HeraldCore
import HeraldFCM
import HeraldHTTP
import HeraldPostgres

/// The composer's routes (pages, uploaded images, the events API) and the access rule of each.
enum ComposerRoutes {
    static func register(on router: inout Router, pool: PostgresPool, log: Log, configuration: HeraldConfiguration, sender: FCMSender?) {
        // Until sign-in lands, pages run as a local administrator with no CSRF token.
        let page: PageGuard = { _, handler in
            { request in handler(request, PageUser(email: "local@herald", role: "admin", csrfToken: "")) }
        }
        let buckets = AudienceBuckets(count: configuration.audienceBuckets)
        CampaignPages(pool: pool, log: log, renderer: PageRenderer(), sender: sender, buckets: buckets).register(on: &router, page: page)
        ImageRoutes(pool: pool, log: log).register(on: &router, open: { $0 })
        EventsAPI(pool: pool, log: log).register(on: &router, guarded: { apiHandler(log, $0) })
    }
}

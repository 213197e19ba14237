import HeraldCore
import HeraldFCM
import HeraldHTTP
import HeraldPostgres

/// The composer's routes (pages, uploaded images, the events API) and the access rule of each.
enum ComposerRoutes {
    static func register(on router: inout Router, access: AccessControl, pool: PostgresPool, log: Log,
                         configuration: HeraldConfiguration, sender: FCMSender?) {
        let page: PageGuard = { minimum, handler in
            access.page(Role(rawValue: minimum) ?? .admin) { request, viewer in
                handler(request, PageUser(viewer: viewer, email: viewer.email, role: viewer.role.rawValue, csrfToken: viewer.csrfToken ?? ""))
            }
        }
        let buckets = AudienceBuckets(count: configuration.audienceBuckets)
        CampaignPages(pool: pool, log: log, renderer: PageRenderer(), sender: sender, buckets: buckets).register(on: &router, page: page)
        // Devices fetch notification images without credentials.
        ImageRoutes(pool: pool, log: log).register(on: &router, open: access.open)
        EventsAPI(pool: pool, log: log).register(on: &router, guarded: { handler in access.events { request, _ in try handler(request) } })
    }
}

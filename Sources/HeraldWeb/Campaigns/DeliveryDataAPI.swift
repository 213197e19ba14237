import HeraldApp

/// `POST /api/v1/delivery-data/refresh`: reads the FCM Data API now (the scheduler reads it every
/// few hours too); the campaign reports show the figures per variant.
struct DeliveryDataAPI: Sendable {
    let deliveryData: DeliveryDataService

    func refresh(_ context: RequestContext) throws -> APIResponse {
        let refreshed = try deliveryData.refresh()
        return APIResponse(status: 200, body: ["apps": .array(refreshed.apps.map { .string($0) }), "rows": .number(Double(refreshed.rows))])
    }
}

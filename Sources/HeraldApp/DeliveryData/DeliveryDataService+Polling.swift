import Foundation

extension DeliveryDataService {
    /// Reads the FCM Data API every `hours` hours on a thread of its own (a slow or refusing API
    /// delays nothing else), once per deployment, on the leader: every instance would read the
    /// same rows and spend the API's quota for nothing. The first read comes a minute after
    /// start (yesterday's figures, without delaying startup).
    func pollingService(hours: Int, log: Log) -> BackgroundService {
        BackgroundService("delivery-data", .leader, every: .seconds(hours * 3600), firstStepAfter: .seconds(60), step: { [self] _ in
            let refreshed = try refresh()
            log.info("FCM delivery data read", ["apps": .number(Double(refreshed.apps.count)), "rows": .number(Double(refreshed.rows))])
            return nil
        })
    }
}

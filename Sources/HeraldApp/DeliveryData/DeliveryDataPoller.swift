import Foundation
import HeraldSync

/// Reads the FCM Data API every few hours on a thread of its own (a slow or refusing API delays
/// nothing else). Every instance reads: the rows are the same, and an upsert makes it harmless.
final class DeliveryDataPoller: Sendable {
    let service: DeliveryDataService
    let interval: Duration
    let log: Log
    let bell = Wakeup()

    init(service: DeliveryDataService, hours: Int, log: Log) {
        self.service = service
        interval = .seconds(hours * 3600)
        self.log = log
    }

    func start() {
        let thread = Thread { [self] in
            // A first read a minute after start: the figures of yesterday's sends, without delaying startup.
            var wait: Duration = .seconds(60)
            while true {
                bell.wait(after: bell.generation, timeout: wait)
                if bell.isStopped { return }
                do {
                    let refreshed = try service.refresh()
                    log.info("FCM delivery data read", ["apps": .number(Double(refreshed.apps.count)), "rows": .number(Double(refreshed.rows))])
                } catch {
                    log.warning("reading FCM delivery data failed: \(error)")
                }
                wait = interval
            }
        }
        thread.name = "herald-delivery-data"
        thread.start()
    }

    func stop() { bell.stop() }
}

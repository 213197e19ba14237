import HeraldPostgres

/// One LISTEN connection for the channels the parts of a process wait on: each notification
/// rings its channel's bells, and every (re)connection rings them all, since what was notified
/// while nobody listened is lost. The scheduler, the delivery workers and the webhook threads of
/// a process share one (one connection, not one each).
struct NotificationListener: Sendable {
    let databaseURL: String
    /// The bells to ring by channel.
    let routes: [String: [Wakeup]]
    let log: Log

    /// Listens until `stopped` says so (looked at ten times a second: a stopping process joins
    /// this thread, and waits for the look).
    func run(until stopped: @Sendable () -> Bool) {
        var listener: PostgresListener?
        let pause = Wakeup()
        while !stopped() {
            do {
                if listener == nil {
                    let fresh = try PostgresListener(url: databaseURL)
                    for channel in routes.keys.sorted() { try fresh.listen(channel) }
                    listener = fresh
                    // Whatever happened while we were not listening is looked at now.
                    for bell in routes.values.joined() { bell.ring() }
                }
                if let notification = try listener?.waitForNotification(timeout: .milliseconds(100)) {
                    for bell in routes[notification.channel] ?? [] { bell.ring() }
                }
            } catch {
                log.warning("listener: \(error)")
                listener?.close()
                listener = nil
                pause.wait(after: pause.generation, timeout: .seconds(1))
            }
        }
        listener?.close()
    }
}

/// Runs `background` on a thread of its own while `foreground` runs on the calling thread, and
/// returns `background`'s result once both are done (so whatever `background` touched is the
/// caller's again). A thread that cannot be started runs `background` here, after `foreground`.
public func inParallel<Result: Sendable>(_ background: @escaping @Sendable () -> Result,
                                         with foreground: () throws -> Void) throws -> Result {
    let done = ConditionLock<Result?>(nil)
    do {
        try startThread(name: "herald-parallel") {
            let result = background()
            done.withLock { $0 = result }
            done.broadcast()
        }
    } catch {
        try foreground()
        return background()
    }
    // The background thread is waited for even when the foreground throws.
    defer { _ = done.wait { $0 } }
    try foreground()
    return done.wait { $0 }
}

import FCMEmulator
import Foundation
import HeraldJSON
import HeraldTestSupport

/// A company's webhook receiver on 127.0.0.1: records what it is posted, and answers as the test
/// says: up (204), down (503), hanging (holds the request unanswered until released), or huge
/// (200 with a body of 50 MB).
final class WebhookReceiver: @unchecked Sendable {
    enum Mode { case up, down, hanging, huge }
    static let hugeBody = [UInt8](repeating: 0x61, count: 50 * 1024 * 1024)

    struct Received: Sendable {
        var deliveryID: String
        var event: String
        var signature: String
        var body: [UInt8]
        var answered: Int
        var json: JSON? { try? JSON.parse(body) }
    }

    /// What the server's threads share; they hold it, not the receiver, so a receiver dropped by
    /// its test leaves nothing dangling for a late request.
    private final class State: @unchecked Sendable {
        let lock = NSCondition()
        var mode: Mode
        var log: [Received] = []
        var hanging = 0
        init(_ mode: Mode) { self.mode = mode }
    }

    private let state: State
    private let server: StubServer

    init(_ mode: Mode = .up) throws {
        let state = State(mode)
        self.state = state
        server = try StubServer { request in WebhookReceiver.answer(request, state) }
    }

    deinit {
        release()
        server.stop()
    }

    var url: String { "http://127.0.0.1:\(server.port)/hooks/herald" }

    func set(_ mode: Mode) { state.lock.withLock { state.mode = mode } }

    /// Every request received, in order of arrival (answered or not).
    var received: [Received] { state.lock.withLock { state.log } }

    /// Requests held unanswered right now.
    var hangingNow: Int { state.lock.withLock { state.hanging } }

    /// Lets every hanging request go (answered 204) and stops hanging.
    func release() {
        state.lock.withLock { state.mode = .up }
        state.lock.broadcast()
    }

    private static func answer(_ request: EmulatorRequest, _ state: State) -> EmulatorAnswer {
        func header(_ name: String) -> String { request.headers.first { $0.name.lowercased() == name.lowercased() }?.value ?? "" }
        state.lock.lock()
        defer { state.lock.unlock() }
        let status = switch state.mode { case .up, .hanging: 204; case .down: 503; case .huge: 200 }
        state.log.append(Received(deliveryID: header("Herald-Webhook-Id"), event: header("Herald-Event"), signature: header("Herald-Signature"),
                                  body: request.body, answered: status))
        if state.mode == .hanging {
            state.hanging += 1
            while state.mode == .hanging { state.lock.wait() }
            state.hanging -= 1
        }
        return .respond(EmulatorResponse(status: status, body: state.mode == .huge ? hugeBody : []), delay: nil)
    }
}

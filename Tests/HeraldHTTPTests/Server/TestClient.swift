import HeraldSync
import Glibc
@testable import HeraldHTTP

/// A response as the test client read it off the wire.
struct WireResponse {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

struct TestClientError: Error, CustomStringConvertible {
    var description: String
}

/// A blocking raw-socket HTTP client for live tests. Every read gives up after `timeout` seconds
/// so a broken server fails a test instead of hanging it.
final class TestClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int, timeout: Int = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestClientError(description: "socket: errno \(errno)") }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let error = errno
            close(fd)
            throw TestClientError(description: "connect: errno \(error)")
        }
    }

    deinit { close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw TestClientError(description: "send: errno \(errno)") }
            offset += sent
        }
    }

    /// Shuts the writing side (sends FIN); the client still reads.
    func finishSending() { _ = Glibc.shutdown(fd, Int32(SHUT_WR)) }

    /// Reads more bytes into the buffer; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            if errno == ECONNRESET { return false }
            throw TestClientError(description: "recv: errno \(errno) (timed out?)")
        }
        buffer += chunk[..<count]
        return count > 0
    }

    /// Reads one response (skipping a `100 Continue` unless `interim`). `headRequest`: the body is not sent.
    func readResponse(headRequest: Bool = false, interim: Bool = false) throws -> WireResponse {
        while true {
            var headEnd: Int?
            while headEnd == nil {
                headEnd = buffer.indices.dropLast(3).first {
                    buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10
                }
                if headEnd == nil, try !fill() { throw TestClientError(description: "connection closed before a response") }
            }
            let head = String(decoding: buffer[..<headEnd!], as: UTF8.self)
            buffer.removeFirst(headEnd! + 4)
            var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).makeIterator()
            let statusLine = lines.next() ?? ""
            let parts = statusLine.split(separator: " ")
            guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
                throw TestClientError(description: "bad status line: \(statusLine)")
            }
            var headers = HTTPHeaders()
            while let line = lines.next() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers.add(String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
            }
            if status == 100 && !interim { continue }
            let length = headRequest ? 0 : Int(headers["Content-Length"] ?? "0") ?? 0
            while buffer.count < length {
                if try !fill() { throw TestClientError(description: "connection closed inside a body") }
            }
            let body = Array(buffer[..<length])
            buffer.removeFirst(length)
            return WireResponse(status: status, headers: headers, body: body)
        }
    }

    /// True when the server closed the connection (reads end of stream) within the timeout.
    func isClosedByServer() throws -> Bool {
        while true {
            if !buffer.isEmpty { return false }
            if try !fill() { return true }
        }
    }
}

/// Runs `body` with a started server on 127.0.0.1 and an ephemeral port, then shuts it down.
func withServer(_ configuration: HTTPServer.Configuration = .init(), loopHandler: LoopHandler? = nil, streaming: BodyStreamingRule? = nil,
                handler: @escaping HTTPHandler, _ body: (HTTPServer) throws -> Void) throws {
    var configuration = configuration
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.log = { _ in }
    let server = HTTPServer(configuration: configuration, loopHandler: loopHandler, streaming: streaming, handler: handler)
    try server.start()
    defer {
        server.shutdown()
        server.wait()
    }
    try body(server)
}

/// A counting semaphore for tests: handlers block on it until the test releases them.
final class TestSemaphore: Sendable {
    private let count = ConditionLock(0)

    func signal() {
        count.withLock { $0 += 1 }
        count.broadcast()
    }

    /// Waits until signalled, at most `seconds`; false on timeout.
    @discardableResult
    func wait(seconds: Double = 5) -> Bool {
        count.wait(until: monotonicDeadline(after: .milliseconds(Int(seconds * 1000)))) { count -> Bool? in
            guard count > 0 else { return nil }
            count -= 1
            return true
        } ?? false
    }
}

func sleep(milliseconds: Int) { usleep(UInt32(milliseconds * 1000)) }

import COpenSSL
import FCMEmulator
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal blocking HTTP/1.1 server on 127.0.0.1 for the HTTP client tests: a thread per
/// connection, keep-alive, Content-Length bodies only, and it can drop a connection unanswered,
/// which HeraldHTTP cannot; over TLS with a given certificate (offering no HTTP/2, as a server
/// without it would). Test scaffolding, not a product server.
public final class StubServer: @unchecked Sendable {
    public let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var accepted = 0  // guarded by `lock`

    /// Connections accepted so far.
    public var acceptedConnections: Int { lock.withLock { accepted } }
    private let handler: @Sendable (EmulatorRequest) -> EmulatorAnswer
    private let tls: SelfSignedCertificate?

    public init(tls: SelfSignedCertificate? = nil, handler: @escaping @Sendable (EmulatorRequest) -> EmulatorAnswer) throws {
        self.handler = handler
        self.tls = tls
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 512) == 0 else { close(listener); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 { if errno == EINTR { continue } else { return } }
            lock.withLock { accepted += 1 }
            var yes: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var session: OpaquePointer?
        if let tls {
            session = SSL_new(tls.serverContext)
            SSL_set_fd(session, connection)
            // A client that does not trust the certificate aborts the handshake here.
            guard SSL_accept(session) == 1 else { SSL_free(session); return }
        }
        defer { if let session { SSL_shutdown(session); SSL_free(session) } }
        func read(_ connection: Int32, _ buffer: inout [UInt8], _ count: Int) -> Int {
            guard let session else { return Glibc.read(connection, &buffer, count) }
            return Int(SSL_read(session, &buffer, Int32(count)))
        }
        func write(_ connection: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
            guard let session else { return Glibc.write(connection, bytes, count) }
            return Int(SSL_write(session, bytes, Int32(count)))
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            // Read until the head is complete, then until the body is.
            var headEnd: Int?
            while true {
                if let end = findHeadEnd(buffer) { headEnd = end; break }
                let count = read(connection, &chunk, chunk.count)
                if count <= 0 { return }
                buffer.append(contentsOf: chunk[0..<count])
            }
            guard let headEnd else { return }
            let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count == 3 else { return }
            let headers = lines.compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            let length = Int(headers.first { $0.name.lowercased() == "content-length" }?.value ?? "0") ?? 0
            while buffer.count < headEnd + 4 + length {
                let count = read(connection, &chunk, chunk.count)
                if count <= 0 { return }
                buffer.append(contentsOf: chunk[0..<count])
            }
            let body = Array(buffer[(headEnd + 4)..<(headEnd + 4 + length)])
            buffer.removeFirst(headEnd + 4 + length)

            let request = EmulatorRequest(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
            switch handler(request) {
            case .dropConnection:
                return
            case .respond(let response, let delay):
                // A stub told to be slow is slow: the delay is what the test asks of it.
                if let delay { Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18) }
                var output = Array("HTTP/1.1 \(response.status) X\r\nContent-Length: \(response.body.count)\r\n".utf8)
                for (name, value) in response.headers { output += Array("\(name): \(value)\r\n".utf8) }
                output += Array("\r\n".utf8) + response.body
                var written = 0
                while written < output.count {
                    let count = output[written...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                    if count <= 0 { return }
                    written += count
                }
            }
        }
    }

    private func findHeadEnd(_ buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4) where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}

import CLinux
import Glibc

/// The few socket operations the server needs, on raw descriptors.
enum Socket {
    /// A non-blocking listening TCP socket bound to `host:port` (numeric IPv4 or IPv6, or a name).
    static func listen(host: String, port: Int, backlog: Int32) throws(SystemCallError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let info = list else {
            throw SystemCallError(call: "getaddrinfo(\(host))", errno: status == EAI_SYSTEM ? Glibc.errno : EINVAL)
        }
        defer { freeaddrinfo(list) }

        let fd = try blockingSystemCall("socket") {
            socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        }
        do throws(SystemCallError) {
            // Restarts must not wait for TIME_WAIT connections of the previous process to expire.
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            do throws(SystemCallError) {
                _ = try blockingSystemCall("bind") { bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) }
            } catch {
                // "Address already in use" is no help without the address: name it.
                throw SystemCallError(call: "bind(\(host.contains(":") ? "[\(host)]" : host):\(port))", errno: error.errno)
            }
            _ = try blockingSystemCall("listen") { Glibc.listen(fd, backlog) }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws(SystemCallError) {
        var value = value
        _ = try blockingSystemCall("setsockopt") { setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) }
    }

    /// The port the socket is bound to (the actual one when port 0 was asked for).
    static func boundPort(_ fd: Int32) throws(SystemCallError) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { pointer throws(SystemCallError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemCallError) in
                try blockingSystemCall("getsockname") { getsockname(fd, address, &length) }
            }
        }
        return address(of: storage).port
    }

    /// Accepts one pending connection, non-blocking and close-on-exec; nil when none is pending.
    static func accept(_ listenFD: Int32) throws(SystemCallError) -> (fd: Int32, remote: String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = try withUnsafeMutablePointer(to: &storage) { pointer throws(SystemCallError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address throws(SystemCallError) in
                try systemCall("accept4") { accept4(listenFD, address, &length, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)) }
            }
        }
        guard let fd else { return nil }
        // Responses go out in one write; Nagle would hold the next one back for an ACK.
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        let (host, port) = address(of: storage)
        return (fd, storage.ss_family == sa_family_t(AF_INET6) ? "[\(host)]:\(port)" : "\(host):\(port)")
    }

    /// The numeric host and port of a socket address.
    static func address(of storage: sockaddr_storage) -> (host: String, port: Int) {
        var storage = storage
        let isIPv6 = storage.ss_family == sa_family_t(AF_INET6)
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        return withUnsafePointer(to: &storage) { pointer in
            if isIPv6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    var address = v6.pointee.sin6_addr
                    inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
                    return (Self.text(text), Int(UInt16(bigEndian: v6.pointee.sin6_port)))
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                var address = v4.pointee.sin_addr
                inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
                return (Self.text(text), Int(UInt16(bigEndian: v4.pointee.sin_port)))
            }
        }
    }

    /// The text of a NUL-terminated C buffer.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

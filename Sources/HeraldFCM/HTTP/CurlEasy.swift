import HeraldSync
import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// One libcurl easy handle with what a transfer needs to outlive the call that configured it:
/// the header list, the error buffer, and the response being received.
///
/// Not thread-safe: a handle belongs to one `CurlSession`, which one thread uses at a time.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let caFile: String?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var headerFields: [(name: String, value: String)] = []
    private(set) var received = HTTPClientResponse(status: 0)
    /// The current request's limits (`HTTPClientRequest`), and why one stopped it.
    private var responseLimit: Int?
    fileprivate var refusesPrivateAddresses = false
    fileprivate var stoppedBecause: String?
    /// Whether the transfer was ended on purpose at the body limit: the answer stands as received.
    private var stoppedAtLimit = false

    /// - Parameter caFile: a PEM file of the CA certificates to trust for TLS instead of the
    ///   system's store; nil for the system's.
    init(caFile: String? = nil) throws(HTTPTransportError) {
        CurlGlobal.ensureInitialised()
        self.caFile = caFile
        guard let handle = curl_easy_init() else {
            throw HTTPTransportError(curlCode: Int(CURLE_FAILED_INIT.rawValue), message: "curl_easy_init failed")
        }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        let context = Unmanaged.passUnretained(self).toOpaque()
        // Options that never change: threads (no signals), HTTP and HTTPS only (also after a
        // redirect, which we never follow), HTTP/2 when TLS offers it.
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        try set(CURLOPT_TCP_KEEPALIVE, 1)
        if let caFile { try set(CURLOPT_CAINFO, caFile) }
        try check(herald_curl_easy_setopt_ptr(handle, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try check(herald_curl_easy_setopt_write(handle, CURLOPT_WRITEFUNCTION, curlEasyWriteBody), "CURLOPT_WRITEFUNCTION")
        try check(herald_curl_easy_setopt_ptr(handle, CURLOPT_WRITEDATA, context), "CURLOPT_WRITEDATA")
        try check(herald_curl_easy_setopt_write(handle, CURLOPT_HEADERFUNCTION, curlEasyWriteHeader), "CURLOPT_HEADERFUNCTION")
        try check(herald_curl_easy_setopt_ptr(handle, CURLOPT_HEADERDATA, context), "CURLOPT_HEADERDATA")
        try check(herald_curl_easy_setopt_opensocket(handle, curlEasyOpenSocket), "CURLOPT_OPENSOCKETFUNCTION")
        try check(herald_curl_easy_setopt_ptr(handle, CURLOPT_OPENSOCKETDATA, context), "CURLOPT_OPENSOCKETDATA")
    }

    deinit {
        curl_easy_cleanup(handle)
        if let headerList { curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    /// Sets the handle up for `request` and clears what the previous transfer received.
    func prepare(_ request: HTTPClientRequest) throws(HTTPTransportError) {
        received = HTTPClientResponse(status: 0)
        errorBuffer[0] = 0
        responseLimit = request.maxResponseBytes
        refusesPrivateAddresses = request.refusePrivateAddresses
        stoppedBecause = nil
        stoppedAtLimit = false
        // A batch sends the same headers many times: rebuild the list only when they change.
        let unchanged = headerList != nil && request.headers.count == headerFields.count
            && zip(request.headers, headerFields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
        if !unchanged {
            if let headerList { curl_slist_free_all(headerList) }
            headerList = nil
            headerFields = request.headers
            // "Expect:" stops curl from waiting for 100-continue before bodies over 1 KiB.
            for line in request.headers.map({ "\($0.name): \($0.value)" }) + ["Expect:"] {
                guard let appended = curl_slist_append(headerList, line) else {
                    throw HTTPTransportError(curlCode: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_slist_append failed")
                }
                headerList = appended
            }
            try check(herald_curl_easy_setopt_ptr(handle, CURLOPT_HTTPHEADER, headerList), "CURLOPT_HTTPHEADER")
        }
        try set(CURLOPT_URL, request.url)
        // Over TLS, wait to learn whether the connection multiplexes (HTTP/2) rather than open a
        // connection per concurrent request; plain HTTP here is HTTP/1.1, one request per connection.
        try set(CURLOPT_PIPEWAIT, request.url.hasPrefix("https://") ? 1 : 0)
        let milliseconds = Int(request.timeout.components.seconds) * 1000
            + Int(request.timeout.components.attoseconds / 1_000_000_000_000_000)
        try set(CURLOPT_TIMEOUT_MS, max(1, milliseconds))
        try check(herald_curl_easy_setopt_ptr(handle, CURLOPT_CUSTOMREQUEST, nil), "CURLOPT_CUSTOMREQUEST")
        switch request.method {
        case "GET":
            try set(CURLOPT_HTTPGET, 1)
        case "POST":
            try set(CURLOPT_POST, 1)
            try setBody(request.body)
        default:
            if request.body.isEmpty { try set(CURLOPT_HTTPGET, 1) } else { try set(CURLOPT_POST, 1); try setBody(request.body) }
            try set(CURLOPT_CUSTOMREQUEST, request.method)
        }
    }

    /// The response after a transfer that libcurl reports as done with `code`.
    func finish(_ code: CURLcode) -> Result<HTTPClientResponse, HTTPTransportError> {
        guard code == CURLE_OK || (code == CURLE_WRITE_ERROR && stoppedAtLimit) else {
            if let stoppedBecause { return .failure(HTTPTransportError(curlCode: Int(code.rawValue), message: stoppedBecause)) }
            let detail = String(cString: errorBuffer)
            var message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            if code == CURLE_PEER_FAILED_VERIFICATION {
                // libcurl says what failed, not which trust store it checked, which is what to fix.
                message += caFile.map { " (the server's certificate is not signed by a CA in \($0))" }
                    ?? " (the server's certificate is not signed by a CA in the system's trust store; name a CA file to trust another)"
            }
            return .failure(HTTPTransportError(curlCode: Int(code.rawValue), message: message))
        }
        var status = 0
        _ = herald_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        received.status = status
        var version = 0
        _ = herald_curl_easy_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        received.httpVersion = HTTPVersion(curlVersion: version)
        return .success(received)
    }

    private func setBody(_ body: [UInt8]) throws(HTTPTransportError) {
        try check(herald_curl_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)), "CURLOPT_POSTFIELDSIZE_LARGE")
        // COPYPOSTFIELDS copies, so the array need not outlive this call.
        let code = body.withUnsafeBytes { herald_curl_easy_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)) }
        try check(code, "CURLOPT_COPYPOSTFIELDS")
    }

    private func set(_ option: CURLoption, _ value: Int) throws(HTTPTransportError) {
        try check(herald_curl_easy_setopt_long(handle, option, value), "option \(option.rawValue)")
    }

    private func set(_ option: CURLoption, _ value: String) throws(HTTPTransportError) {
        try check(value.withCString { herald_curl_easy_setopt_ptr(handle, option, $0) }, "option \(option.rawValue)")
    }

    private func check(_ code: CURLcode, _ what: String) throws(HTTPTransportError) {
        guard code == CURLE_OK else {
            throw HTTPTransportError(curlCode: Int(code.rawValue), message: "setting \(what): \(String(cString: curl_easy_strerror(code)))")
        }
    }

    /// Keeps the bytes up to the request's limit; past it, keeps what fits and returns false, which
    /// ends the transfer without reading the rest (the status and headers are already in).
    fileprivate func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let responseLimit, received.body.count + bytes.count > responseLimit {
            received.body.append(contentsOf: bytes.prefix(responseLimit - received.body.count))
            received.bodyTruncated = true
            stoppedAtLimit = true
            return false
        }
        received.body.append(contentsOf: bytes)
        return true
    }

    fileprivate func appendHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0D || bytes[end - 1] == 0x0A { end -= 1 }
        received.appendHeaderLine(UnsafeRawBufferPointer(rebasing: bytes[0..<end]))
    }
}

private func curlEasyWriteBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let easy = Unmanaged<CurlEasy>.fromOpaque(context).takeUnretainedValue()
    return easy.appendBody(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
}

/// Opens the socket libcurl asks for, unless the request refuses the address it resolved to.
private func curlEasyOpenSocket(_ context: UnsafeMutableRawPointer?, _ purpose: curlsocktype,
                                _ address: UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t {
    guard let context, let address else { return -1 }
    let easy = Unmanaged<CurlEasy>.fromOpaque(context).takeUnretainedValue()
    if easy.refusesPrivateAddresses {
        // `addr` is declared a `sockaddr`, but libcurl stores the whole address (`addrlen` bytes) there.
        let start = UnsafeRawPointer(address) + MemoryLayout<curl_sockaddr>.offset(of: \.addr)!
        let raw = UnsafeRawBufferPointer(start: start, count: Int(address.pointee.addrlen))
        let bytes: [UInt8] = switch Int32(address.pointee.family) {
        case AF_INET where raw.count >= 8: Array(raw[4..<8])  // sockaddr_in: family, port, then the address
        case AF_INET6 where raw.count >= 24: Array(raw[8..<24])  // sockaddr_in6: family, port, flow info, then the address
        default: []
        }
        if let reason = PrivateAddress.reason(bytes) {
            easy.stoppedBecause = "refused to connect: the host resolves to \(reason), and requests to private addresses are off"
            return -1
        }
    }
    return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
}

private func curlEasyWriteHeader(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let easy = Unmanaged<CurlEasy>.fromOpaque(context).takeUnretainedValue()
    easy.appendHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
}

extension HTTPVersion {
    /// From `CURLINFO_HTTP_VERSION`.
    init(curlVersion: Int) {
        switch curlVersion {
        case Int(CURL_HTTP_VERSION_1_0): self = .http1_0
        case Int(CURL_HTTP_VERSION_1_1): self = .http1_1
        case Int(CURL_HTTP_VERSION_2_0): self = .http2
        case Int(CURL_HTTP_VERSION_3): self = .http3
        default: self = .unknown
        }
    }
}

/// `curl_global_init` must run once before any other thread uses libcurl.
enum CurlGlobal {
    private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    static func ensureInitialised() { _ = initialised }
}

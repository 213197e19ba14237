import CCurl

/// A libcurl multi handle and its idle easy handles: one thread drives many transfers at once,
/// and the multi handle's connection cache keeps connections (and HTTP/2 streams) open between
/// requests and between calls.
///
/// Used by one thread at a time; `CurlHTTPClient` checks sessions out of its pool.
final class CurlSession: @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer
    private var idle: [CurlEasy] = []
    private let caFile: String?

    init(caFile: String? = nil) throws(HTTPTransportError) {
        self.caFile = caFile
        CurlGlobal.ensureInitialised()
        guard let multi = curl_multi_init() else {
            throw HTTPTransportError(curlCode: Int(CURLE_FAILED_INIT.rawValue), message: "curl_multi_init failed")
        }
        self.multi = multi
        // HTTP/2 multiplexing: concurrent requests to one host share a connection as streams.
        _ = herald_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = herald_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, CurlHTTPClient.streamsPerConnection)
    }

    deinit {
        idle.removeAll()
        curl_multi_cleanup(multi)
    }

    /// Performs `requests` with at most `concurrency` in flight; results are in request order.
    func perform(_ requests: [HTTPClientRequest], concurrency: Int) -> [Result<HTTPClientResponse, HTTPTransportError>] {
        let limit = max(1, concurrency)
        // Keep enough connections cached for the widest batch seen.
        _ = herald_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(limit, 8))
        var results = [Result<HTTPClientResponse, HTTPTransportError>?](repeating: nil, count: requests.count)
        var inFlight: [UnsafeMutableRawPointer: (easy: CurlEasy, index: Int)] = [:]
        var next = 0
        var finished = 0

        while finished < requests.count {
            while inFlight.count < limit, next < requests.count {
                let index = next
                next += 1
                do throws(HTTPTransportError) {
                    let easy: CurlEasy
                    if let reused = idle.popLast() { easy = reused } else { easy = try CurlEasy(caFile: caFile) }
                    try easy.prepare(requests[index])
                    let added = curl_multi_add_handle(multi, easy.handle)
                    guard added == CURLM_OK else {
                        results[index] = .failure(HTTPTransportError(curlCode: -Int(added.rawValue), message: String(cString: curl_multi_strerror(added))))
                        finished += 1
                        continue
                    }
                    inFlight[easy.handle] = (easy, index)
                } catch {
                    results[index] = .failure(error)
                    finished += 1
                }
            }
            var running: Int32 = 0
            let performed = curl_multi_perform(multi, &running)
            if performed != CURLM_OK {
                failAll(&inFlight, &results, &finished, CURLcode(rawValue: CURLE_FAILED_INIT.rawValue), String(cString: curl_multi_strerror(performed)))
                continue
            }
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                      let transfer = inFlight.removeValue(forKey: handle) else { continue }
                let code = message.pointee.data.result
                curl_multi_remove_handle(multi, handle)
                results[transfer.index] = transfer.easy.finish(code)
                idle.append(transfer.easy)
                finished += 1
            }
            if finished < requests.count, !inFlight.isEmpty {
                // Waits for socket activity or libcurl's next timeout, whichever comes first.
                _ = curl_multi_poll(multi, nil, 0, 1000, nil)
            }
        }
        return results.map { $0! }
    }

    private func failAll(
        _ inFlight: inout [UnsafeMutableRawPointer: (easy: CurlEasy, index: Int)],
        _ results: inout [Result<HTTPClientResponse, HTTPTransportError>?],
        _ finished: inout Int, _ code: CURLcode, _ message: String
    ) {
        for (handle, transfer) in inFlight {
            curl_multi_remove_handle(multi, handle)
            results[transfer.index] = .failure(HTTPTransportError(curlCode: Int(code.rawValue), message: message))
            finished += 1
        }
        inFlight.removeAll()
    }
}

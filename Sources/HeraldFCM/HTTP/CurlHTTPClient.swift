import Synchronization

/// A blocking HTTP client on libcurl, safe to call from many threads.
///
/// Each call checks a `CurlSession` (a multi handle with its connection cache) out of a pool and
/// returns it afterwards, so connections are reused across calls and across threads without ever
/// sharing a libcurl handle between two threads at once.
public final class CurlHTTPClient: Sendable {
    /// HTTP/2 streams one connection carries at once, as the Admin SDKs use with FCM; further
    /// concurrent requests wait for a stream or open another connection.
    public static let streamsPerConnection = 100

    private let pool = Mutex<[CurlSession]>([])
    private let maxIdleSessions: Int
    /// The PEM file of CA certificates TLS peers are checked against; nil for the system's store.
    public let caFile: String?

    /// - Parameters:
    ///   - caFile: a PEM file of CA certificates to trust instead of the system's (a private CA,
    ///     a corporate proxy's, a test server's self-signed certificate).
    ///   - maxIdleSessions: sessions (each with its open connections) kept between calls;
    ///     about the number of threads that call at the same time.
    public init(caFile: String? = nil, maxIdleSessions: Int = 16) {
        self.caFile = caFile
        self.maxIdleSessions = maxIdleSessions
    }

    /// Performs one request and waits for its response.
    public func perform(_ request: HTTPClientRequest) -> Result<HTTPClientResponse, HTTPTransportError> {
        perform([request], concurrency: 1)[0]
    }

    /// Performs `requests` with at most `concurrency` in flight on one thread, and returns their
    /// results in the order of `requests`.
    public func perform(_ requests: [HTTPClientRequest], concurrency: Int) -> [Result<HTTPClientResponse, HTTPTransportError>] {
        guard !requests.isEmpty else { return [] }
        let session: CurlSession
        if let pooled = pool.withLock({ $0.popLast() }) {
            session = pooled
        } else {
            do {
                session = try CurlSession(caFile: caFile)
            } catch {
                return requests.map { _ in .failure(error) }
            }
        }
        let results = session.perform(requests, concurrency: concurrency)
        pool.withLock { sessions in
            if sessions.count < maxIdleSessions { sessions.append(session) }
        }
        return results
    }
}

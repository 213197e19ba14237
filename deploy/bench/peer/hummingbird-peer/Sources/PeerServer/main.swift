// A Hummingbird 2 server serving what Herald's HTTP benchmark hits, so the two can be compared
// on the same machine in one run.
//
//   PeerServer PORT
//
//   GET /healthz    → 200 {"status":"ok"} (application/json)
//   GET /echo/{id}  → 200 JSON with the (still percent-encoded) id and its length, via JSONEncoder
import Foundation
import Hummingbird

/// The body of `GET /echo/{id}`, encoded by Hummingbird's default JSON encoder.
struct Echo: ResponseEncodable {
    let id: String
    let length: Int
}

let arguments = CommandLine.arguments
guard arguments.count == 2, let port = Int(arguments[1]), (1...65535).contains(port) else {
    print("usage: PeerServer PORT  (a TCP port to listen on at 127.0.0.1)")
    exit(2)
}

// Built once: the health answer never changes, as Herald's does not.
let healthBody = ByteBuffer(string: #"{"status":"ok"}"#)

let router = Router()
router.get("healthz") { _, _ -> Response in
    Response(
        status: .ok,
        headers: [.contentType: "application/json"],
        body: ResponseBody(byteBuffer: healthBody)
    )
}
router.get("echo/{id}") { _, context -> Echo in
    let id = try context.parameters.require("id")
    return Echo(id: id, length: id.count)
}

let app = Application(
    router: router,
    // Hummingbird's default logger: one line at start, nothing per request (no logging middleware).
    configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "peer")
)
try await app.runService()

// swift-tools-version:6.0
// The peer for Herald's HTTP benchmark: a minimal Hummingbird 2 server with the same routes.
// Built and run by deploy/bench/peer/run; not part of Herald's own package. The folder is not named
// `hummingbird` because SwiftPM names a root package after its folder, which would clash with the
// dependency's identity.
import PackageDescription

let package = Package(
    name: "PeerServer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "PeerServer",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")]
        ),
    ]
)

// swift-tools-version:6.0
// Herald: a campaign composer for Firebase Cloud Messaging.
// Dependencies point one way (see DESIGN.md), and nothing lower knows what is above it:
//   herald → HeraldWeb (HTTP, HTML) → HeraldApp (use cases, SQL, workers) → HeraldCore (the domain, pure) → FCMMessage;
//   HeraldWeb → HeraldHTTP; HeraldApp → HeraldPostgres, HeraldFCM;
//   below them all: HeraldCrypto, HeraldSync, HeraldCalendar, HeraldJSON and the C system libraries.
import PackageDescription

let package = Package(
    name: "Herald",
    // The pages' texts are string tables per language (Sources/HeraldWeb/Localization/<lang>.lproj);
    // English is the one every key must exist in first.
    defaultLocalization: "en",
    products: [
        .executable(name: "herald", targets: ["herald"]),
    ],
    dependencies: [
        // The command line (`herald serve`, `herald migrate`, …): the standard parser, with help and
        // errors a user expects; writing that by hand buys nothing.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Page templates that escape by default ({{ }}), with partials and inheritance for one
        // layout: the templating issue asked for exactly this, and it has no dependencies of its own.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        // C libraries the user fixed: libpq, libcurl, libssl/libcrypto (Debian's -dev packages).
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),

        // Linux calls the Glibc module leaves out (epoll, eventfd, accept4), for HeraldHTTP's event loops.
        .systemLibrary(name: "CLinux"),

        // Days and proleptic Gregorian dates (civil-from-days): one copy for the scheduler's local dates,
        // PostgreSQL's timestamps and HTTP dates, below all three.
        .target(name: "HeraldCalendar"),
        // Pure JSON values: a parser that says where input is malformed, and a fast byte-level writer.
        .target(name: "HeraldJSON"),
        // The one copy of each primitive Herald needs from libcrypto: SHA-256, random bytes (one failure
        // policy: stop), constant-time comparison, PBKDF2, Base64URL and RSA signatures (RS256).
        .target(name: "HeraldCrypto", dependencies: ["COpenSSL"]),
        // A pthread mutex with a condition variable and monotonic deadlines (Synchronization.Mutex has no
        // condition variable): the pool's waits and the scheduler's doorbell.
        .target(name: "HeraldSync", dependencies: ["CLinux"]),
        // HTTP/1.1 on raw sockets and epoll; knows nothing of campaigns or databases.
        .target(name: "HeraldHTTP", dependencies: ["CLinux", "HeraldSync"]),
        // PostgreSQL through libpq: connections, a bounded pool, parameterised queries, migrations.
        // HeraldCrypto: SHA-256 checksums of migration files.
        .target(name: "HeraldPostgres", dependencies: ["CLibPQ", "HeraldCalendar", "HeraldCrypto", "HeraldSync"]),
        // The FCM v1 vocabulary, pure: the message model, topic conditions, message validation and the
        // errors FCM answers with, so the domain and the web face use them without linking the sender (libcurl).
        .target(name: "FCMMessage", dependencies: ["HeraldCalendar", "HeraldJSON"]),
        // The FCM HTTP v1 API: service-account OAuth, the libcurl sender, retry policy.
        .target(name: "HeraldFCM", dependencies: ["FCMMessage", "HeraldCalendar", "HeraldCrypto", "HeraldJSON", "HeraldSync", "CCurl"]),
        // A local stand-in for FCM's v1 API and OAuth endpoint, on Herald's own HTTP server.
        .target(name: "FCMEmulator", dependencies: ["HeraldFCM", "FCMMessage", "HeraldCalendar", "HeraldCrypto", "HeraldHTTP", "HeraldJSON", "HeraldSync", "COpenSSL"]),
        // The domain, pure: campaigns, validation and composer limits, rendering, the fan-out planner.
        .target(name: "HeraldCore", dependencies: ["FCMMessage", "HeraldCalendar", "HeraldJSON"]),
        // The application: one service per aggregate (each write one transaction with its audit
        // entry), the stores' SQL, the scheduler and workers. It speaks no HTTP and renders no HTML.
        .target(name: "HeraldApp",
                dependencies: ["HeraldCore", "FCMMessage", "HeraldPostgres", "HeraldFCM", "HeraldCalendar", "HeraldCrypto", "HeraldJSON", "HeraldSync"]),
        // Everything that speaks HTTP or HTML: the one route table, the middleware that builds each
        // request's context, the REST handlers, the pages and their templates, the two error renderers.
        .target(name: "HeraldWeb",
                dependencies: ["HeraldApp", "HeraldCore", "FCMMessage", "HeraldCrypto", "HeraldHTTP", "HeraldJSON", "HeraldSync",
                               .product(name: "Mustache", package: "swift-mustache")],
                // Templates are compiled into the binary; the string tables are Foundation's `.lproj`
                // bundles, shipped beside it (deploy/release/build copies the resource bundle).
                resources: [.embedInCode("Pages/Templates"), .process("Localization/Strings")]),
        // The command line and the wiring.
        .executableTarget(name: "herald", dependencies: [
            "HeraldWeb", "HeraldApp", "HeraldCore", "FCMEmulator", "FCMMessage", "HeraldFCM", "HeraldPostgres", "HeraldHTTP", "HeraldJSON", "HeraldSync",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // What the integration tests share: the test database, throwaway clusters, an FCM emulator to send to.
        .target(name: "HeraldTestSupport", dependencies: ["HeraldApp", "HeraldPostgres", "FCMEmulator", "HeraldFCM", "HeraldHTTP", "HeraldJSON", "COpenSSL"],
                path: "Tests/HeraldTestSupport"),
        .testTarget(name: "HeraldJSONTests", dependencies: ["HeraldJSON"]),
        .testTarget(name: "HeraldCalendarTests", dependencies: ["HeraldCalendar"]),
        .testTarget(name: "HeraldSyncTests", dependencies: ["HeraldSync"]),
        .testTarget(name: "HeraldCryptoTests", dependencies: ["HeraldCrypto"]),
        .testTarget(name: "HeraldHTTPTests", dependencies: ["HeraldHTTP", "HeraldSync"]),
        .testTarget(name: "HeraldPostgresTests", dependencies: ["HeraldPostgres", "HeraldTestSupport"]),
        .testTarget(name: "HeraldFCMTests", dependencies: ["HeraldFCM", "FCMMessage", "HeraldCrypto", "FCMEmulator", "HeraldHTTP", "HeraldJSON", "HeraldTestSupport"]),
        .testTarget(name: "HeraldCoreTests", dependencies: ["HeraldCore", "FCMMessage", "HeraldJSON", "HeraldFCM", "HeraldTestSupport"]),
        // The application layer against PostgreSQL, without Herald's sockets: services, the outbox, processes.
        .testTarget(name: "HeraldAppTests", dependencies: ["HeraldTestSupport", "HeraldApp", "FCMEmulator", "FCMMessage", "HeraldFCM", "HeraldHTTP",
                                                    "HeraldPostgres", "HeraldJSON", "HeraldCore", "HeraldSync"]),
        // The web face: routes in-process through the whole middleware chain, and a live server over real sockets.
        .testTarget(name: "HeraldWebTests", dependencies: ["HeraldTestSupport", "HeraldWeb", "HeraldCrypto", "HeraldApp", "FCMEmulator", "HeraldFCM", "HeraldHTTP",
                                                    "HeraldPostgres", "HeraldJSON", "HeraldCore", "HeraldSync"]),
    ]
)

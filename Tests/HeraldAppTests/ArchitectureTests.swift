import Foundation
import HeraldTestSupport
import Testing

/// The shape DESIGN.md asks for, checked on the sources themselves so that it cannot drift:
/// one route table, statuses only through their types, and the direction of dependencies.
@Suite struct ArchitectureTests {
    /// Every Swift file under `Sources/<module>` (all modules when nil), with its text.
    static func sources(in modules: [String]? = nil) throws -> [(path: String, text: String)] {
        let root = URL(fileURLWithPath: TestDatabase.repositoryRoot + "/Sources")
        let names = try modules ?? FileManager.default.contentsOfDirectory(atPath: root.path)
        var files: [(String, String)] = []
        for name in names {
            guard let walker = FileManager.default.enumerator(at: root.appendingPathComponent(name), includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "swift" {
                files.append(("\(name)/" + url.path.dropFirst(root.appendingPathComponent(name).path.count + 1), try String(contentsOf: url, encoding: .utf8)))
            }
        }
        return files
    }

    static func lines(_ text: String, matching pattern: String) throws -> [String] {
        let regex = try Regex(pattern)
        return text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.firstMatch(of: regex) != nil
        }.map(String.init)
    }

    /// Herald's routes are added in `HeraldWeb/Routes.swift` only (the emulator, a stand-in for
    /// Google's servers, and the HTTP library itself are not Herald's routes).
    @Test func routesAreAddedInTheOneTableOnly() throws {
        for file in try Self.sources() where file.path != "HeraldWeb/Routes.swift"
            && !file.path.hasPrefix("FCMEmulator/") && !file.path.hasPrefix("HeraldHTTP/") {
            let found = try Self.lines(file.text, matching: #"\.add\(\s*\.(get|head|post|put|patch|delete|options)\b|RouteTable<Route>\(|Router\(\)"#)
            #expect(found.isEmpty, "\(file.path) adds routes outside Routes.swift: \(found)")
        }
    }

    /// The engine has one run writer: runs and their requests (request rows and streamed batches)
    /// are inserted in `HeraldApp/Scheduling/RunWriter.swift` only, whatever kind of send makes
    /// them (a service writes no engine SQL).
    @Test func runsAndRequestsAreInsertedByTheOneRunWriter() throws {
        for file in try Self.sources() where file.path != "HeraldApp/Scheduling/RunWriter.swift" {
            let found = try Self.lines(file.text, matching: #"(?i)insert\s+into\s+(runs|deliveries|device_batches)\b"#)
            #expect(found.isEmpty, "\(file.path) inserts runs or requests outside RunWriter: \(found)")
        }
    }

    /// One claim module: requests (rows and streamed batches) are leased to a worker in
    /// `Claims.swift` only, and what FCM answered is written by the one recorder, `Recorder.swift`.
    @Test func requestsAreClaimedInOneModuleAndRecordedByOneRecorder() throws {
        let claims = try Self.sources().filter {
            try !Self.lines($0.text, matching: #"(?i)update\s+(deliveries|device_batches)\s+\w+\s+set\s+lease_owner\s*=\s*\\\(owner\)"#).isEmpty
        }.map(\.path)
        #expect(claims == ["HeraldApp/Scheduling/Claims.swift"], "\(claims)")
        let recorders = try Self.sources().filter {
            try !Self.lines($0.text, matching: #"(?i)insert\s+into\s+delivery_failures\b|update\s+deliveries\s+d\s+set\s+status\s*=\s*x\.status"#).isEmpty
        }.map(\.path)
        #expect(recorders == ["HeraldApp/Scheduling/Recorder.swift"], "\(recorders)")
    }

    /// No service writes the engine's tables: what a cancel, an erasure or a move does to runs
    /// and requests is the engine's own code (`Scheduling/`), called by the services.
    @Test func onlyTheEngineWritesRunsAndRequests() throws {
        let tables = "runs|deliveries|device_batches|delivery_failures|run_skips|run_counts"
        for file in try Self.sources() where !file.path.hasPrefix("HeraldApp/Scheduling/") {
            let found = try Self.lines(file.text, matching: #"(?i)(update|delete\s+from|insert\s+into)\s+(\#(tables))\b"#)
            #expect(found.isEmpty, "\(file.path) writes the engine's tables: \(found)")
        }
    }

    /// Nor does a service read them: what a campaign's or a send's runs and requests say (its
    /// progress, its report, a send's outcome) is read through the engine's `ProgressStore`.
    @Test func onlyTheEngineReadsRunsAndRequests() throws {
        let tables = "runs|deliveries|device_batches|delivery_failures|run_skips|run_counts"
        for file in try Self.sources() where !file.path.hasPrefix("HeraldApp/Scheduling/") {
            let found = try Self.lines(file.text, matching: #"(?i)\b(from|join)\s+(\#(tables))\b"#)
            #expect(found.isEmpty, "\(file.path) reads the engine's tables: \(found)")
        }
    }

    /// Inside the engine, a run and a campaign are named by their types (`RunID`, `CampaignID`),
    /// never by text: a run's id passed where a campaign's belongs does not compile.
    @Test func theEngineNamesRunsCampaignsAndDevicesByTheirTypes() throws {
        for file in try Self.sources() where file.path.hasPrefix("HeraldApp/Scheduling/") {
            let found = try Self.lines(file.text, matching: #"\b(runID|campaignID|runIDs|campaignIDs|id)\??\s*:\s*(String|\[String\]|Set<String>)\??[\s,)=]"#)
            #expect(found.isEmpty, "\(file.path) names a run or a campaign by text: \(found)")
            let devices = try Self.lines(file.text, matching: #"\b(token|tokens|fid|after|last|lastToken)\??\s*:\s*(String|\[String\]|Set<String>)\??([\s,)=]|$)"#)
            #expect(devices.isEmpty, "\(file.path) names a device by text: \(devices)")
        }
    }

    /// A run's kind is one column, `runs.kind`, read and written by its cases: the booleans the
    /// release before used (`per_device`, `streamed`) are kept in step by the database for it alone.
    @Test func aRunsKindIsReadByItsCasesNotByBooleans() throws {
        for file in try Self.sources() {
            let found = try Self.lines(file.text, matching: #"\bper_device\b|\b(r|fr)\.streamed\b|\b(WHERE|AND|NOT) streamed\b"#)
            #expect(found.isEmpty, "\(file.path) reads a run's kind by the old booleans: \(found)")
        }
    }

    /// Whether a run or a request may be sent now (pause, expiry, sending hours, lease, due time)
    /// is written once, in SendRules, and every claim reads it there: a rule written twice was a
    /// rule one path forgot.
    @Test func theMaySendNowRulesAreWrittenOnceForEveryClaim() throws {
        for file in try Self.sources() where file.path != "HeraldApp/Scheduling/SendRules.swift" {
            let found = try Self.lines(file.text, matching: #"held\.status|window_opens_at <= now\(\)|d\.lease_expires_at IS NULL OR d\.lease_expires_at < now\(\)"#)
            #expect(found.isEmpty, "\(file.path) writes a may-send rule outside SendRules: \(found)")
        }
        let claims = try Self.sources().filter { $0.text.contains("SendRules.runMaySendNow") }.map(\.path).sorted()
        #expect(claims == ["HeraldApp/Scheduling/Claims.swift"], "\(claims)")
        let caps = try Self.sources().filter { $0.text.contains("applyCaps(") }.map(\.path).sorted()
        #expect(caps == ["HeraldApp/Contact/DeviceTouchStore.swift", "HeraldApp/Scheduling/SendRules.swift"], "caps applied outside the rules: \(caps)")
    }

    /// Campaign, run and delivery statuses appear as text only in the file of their types: SQL
    /// binds them, Swift compares the enums. (A word used as a dictionary key, `"sent": 3`, or as
    /// a column's name, `columns: "id", "sent"`, is a name of a count, not a status. FCM's own
    /// words, in the emulator, the FCM client and the Data API's figures, are FCM's.)
    @Test func statusesAreWrittenOnlyInTheirTypes() throws {
        let words = "draft|scheduled|sending|sent|partially_failed|failed|cancelled|pending|retrying"
        for file in try Self.sources() where file.path != "HeraldCore/Campaign/CampaignStatus.swift"
            && !file.path.hasPrefix("FCMEmulator/") && !file.path.hasPrefix("HeraldFCM/") && file.path != "FCMMessage/FCMDeliveryFigures.swift" {
            let sql = try Self.lines(file.text, matching: "'(\(words))'")
            let swift = try Self.lines(Self.withoutColumnNames(file.text), matching: #""(\#(words))"(?!\s*:)"#)
            #expect(sql.isEmpty && swift.isEmpty, "\(file.path) spells a status: \(sql + swift)")
        }
    }

    /// A state a statement compares with is written into it as a constant (`\(constants: […])`),
    /// never bound: a prepared statement's generic plan cannot prove a partial index's predicate
    /// (`WHERE status = 'pending'`) from `status = $3`, and read the whole table instead. The claim
    /// of a journey's batches did so at a million devices (a sequential scan of device_batches per
    /// claim once PostgreSQL had switched to the generic plan).
    @Test func statesAreComparedAsConstants() throws {
        for file in try Self.sources() where file.path.hasPrefix("HeraldApp/") {
            let bound = try Self.lines(file.text, matching: #"status\s*(=|<>|!=)\s*(ANY\()?\\\(\w+(Status|State)\."#)
            #expect(bound.isEmpty, "\(file.path) compares a state with a bound value: \(bound)")
        }
    }

    /// The text without its lists of column names (`columns: "id", "sent"`, `column: "pending"`):
    /// a column's name is no state, but the rest of its line is still read.
    static func withoutColumnNames(_ text: String) -> String {
        text.replacing(/columns?: "[^"]*"(, "[^"]*")*/, with: "columns: …")
    }

    /// Device states and event types too: each appears as text only in its enum's file (and a dry
    /// run's result in its own), whether in SQL (`status = 'active'`) or in Swift (`== "open"`).
    @Test func deviceStatesAndEventTypesAreWrittenOnlyInTheirTypes() throws {
        let exempt: Set<String> = ["HeraldCore/Audience/DeviceStatus.swift", "HeraldCore/Statistics/EventType.swift"]
        let words = "active|invalid|stale|open|conversion"
        for file in try Self.sources() where !exempt.contains(file.path)
            && !file.path.hasPrefix("FCMEmulator/") && !file.path.hasPrefix("HeraldFCM/") {
            let sql = try Self.lines(file.text, matching: "'(\(words))'")
            let swift = try Self.lines(Self.withoutColumnNames(file.text), matching: #""(\#(words))"(?!\s*:)"#)
            #expect(sql.isEmpty && swift.isEmpty, "\(file.path) spells a device state or event type: \(sql + swift)")
        }
    }

    /// The application layer speaks no HTTP and renders no HTML; the web module owns both.
    @Test func theApplicationLayerImportsNeitherHTTPNorTemplates() throws {
        for file in try Self.sources(in: ["HeraldApp"]) {
            let imports = try Self.lines(file.text, matching: #"^\s*(@testable\s+)?import\s+(HeraldHTTP|HeraldWeb|Mustache)\b"#)
            #expect(imports.isEmpty, "\(file.path): \(imports)")
        }
        let manifest = try String(contentsOfFile: TestDatabase.repositoryRoot + "/Package.swift", encoding: .utf8)
        let app = try #require(manifest.firstMatch(of: try Regex(#"\.target\(name: "HeraldApp",[^)]*\)"#)))
        #expect(!app.output[0].substring!.contains("HeraldHTTP"))
        #expect(!app.output[0].substring!.contains("Mustache"))
    }

    /// The services are the application layer's surface: its stores (the SQL) are internal, no
    /// store type is public, the application does not hand out its database, and the web module
    /// names no store. A page or an API handler reaches data only through a service.
    @Test func storesAreInternalAndTheWebReachesDataThroughServices() throws {
        for file in try Self.sources(in: ["HeraldApp"]) {
            let stores = try Self.lines(file.text, matching: #"^\s*public\s+(struct|final\s+class|class|enum|actor)\s+[A-Za-z]*Store\b"#)
            #expect(stores.isEmpty, "\(file.path) makes a store public: \(stores)")
            let database = try Self.lines(file.text, matching: #"^\s*public\s+(let|var)\s+database\s*:\s*Database\b"#)
            #expect(database.isEmpty, "\(file.path) hands out the database: \(database)")
        }
        for file in try Self.sources(in: ["HeraldWeb", "herald"]) {
            let named = try Self.lines(file.text, matching: #"\b[A-Z][A-Za-z]*Store\b"#)
            #expect(named.isEmpty, "\(file.path) names a store: \(named)")
        }
    }

    /// The application layer hands out typed values and HeraldWeb alone writes the API's JSON: no
    /// public `json` member and no public function answering `JSON` in HeraldApp (a campaign's
    /// content and an audit entry's details are data the caller gave, kept as given).
    @Test func onlyTheWebWritesTheAPIsJSON() throws {
        for file in try Self.sources(in: ["HeraldApp"]) {
            let found = try Self.lines(file.text, matching: #"public\s+(var|let|func)\s+json\b|public\s+(static\s+)?func\s+[A-Za-z]+\([^)]*\)\s*(throws\s*)?->\s*\[?JSON\b"#)
            #expect(found.isEmpty, "\(file.path) writes the API's JSON: \(found)")
        }
    }

    /// Stores read columns by name: a tuple names its columns (`decode((…).self, columns: …)`), and
    /// a row read by position (a hot path: every device of an audience) is read only after its
    /// result's column names were checked once (`requireColumns`), so a reordered SELECT fails
    /// loudly instead of reading one column as another.
    @Test func storesReadColumnsByName() throws {
        for file in try Self.sources(in: ["HeraldApp"]) {
            let tuples = try Self.lines(file.text, matching: #"\.decode\(\(.*\)\.self\)"#)
            #expect(tuples.isEmpty || file.text.contains("requireColumns("), "\(file.path) reads a tuple by position: \(tuples)")
            let positions = try Self.lines(file.text, matching: #"\.decode\([^)]*, at: [1-9]"#)
            #expect(positions.isEmpty || file.text.contains("requireColumns("), "\(file.path) reads columns by position: \(positions)")
        }
    }

    /// The application layer hands out times as `Date` and ids as their own types (`CampaignID`,
    /// `RunID`, `SegmentID`, `SessionID`…), not text: no public stored property named like a time
    /// (`at`, `…At`) or an id (`id`, `…ID`) is a `String`.
    @Test func publicTimesAndIdsAreTypedNotText() throws {
        var found: [String] = []
        for file in try Self.sources(in: ["HeraldApp"]) {
            for line in try Self.lines(file.text, matching: #"public\s+(let|var)\s+(id|at|[a-z][A-Za-z]*(At|ID))\s*:\s*String\b"#) {
                found.append("\(file.path): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(found.isEmpty, "text where a Date or an id type belongs: \(found)")
    }

    /// Every target declares the modules its files import, and declares none it does not import:
    /// the manifest says what each part depends on, and a build that links a module by accident
    /// (through another target) does not hide it.
    @Test func everyTargetDeclaresWhatItImports() throws {
        let root = TestDatabase.repositoryRoot
        let manifest = try String(contentsOfFile: root + "/Package.swift", encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
        let starts = manifest.matches(of: /\.(target|testTarget|executableTarget)\(\s*name:\s*"([^"]+)"/)
        var targets: [(name: String, folder: String, dependencies: Set<String>)] = []
        for (index, start) in starts.enumerated() {
            let end = index + 1 < starts.count ? starts[index + 1].range.lowerBound : manifest.endIndex
            let body = manifest[start.range.upperBound..<end]
            var dependencies = Set<String>()
            if let list = body.firstMatch(of: /dependencies:\s*\[([\s\S]*?)\]\s*[,)]/) {
                let text = String(list.1)
                dependencies.formUnion(text.matches(of: /\.product\(name:\s*"([^"]+)"/).map { String($0.1) })
                dependencies.formUnion(text.replacing(/\.product\([^)]*\)/, with: "").matches(of: /"([A-Za-z]+)"/).map { String($0.1) })
            }
            let name = String(start.2)
            let folder = body.firstMatch(of: /path:\s*"([^"]+)"/).map { String($0.1) }
                ?? (start.1 == "testTarget" ? "Tests/\(name)" : "Sources/\(name)")
            targets.append((name, folder, dependencies))
        }
        #expect(targets.count > 20, "the manifest's targets were read")
        let modules = Set(targets.map(\.name)).union(["Mustache", "ArgumentParser"])
        for target in targets {
            guard let walker = FileManager.default.enumerator(atPath: root + "/" + target.folder) else { continue }
            var imported = Set<String>()
            for case let file as String in walker where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: root + "/" + target.folder + "/" + file, encoding: .utf8)
                for line in text.split(separator: "\n") {
                    if let found = line.firstMatch(of: /^\s*(?:@testable\s+)?import\s+(?:(?:struct|class|enum)\s+)?([A-Za-z_]+)/) { imported.insert(String(found.1)) }
                }
            }
            let undeclared = imported.filter { modules.contains($0) && !target.dependencies.contains($0) && $0 != target.name }
            let unused = target.dependencies.filter { !imported.contains($0) && !$0.hasPrefix("C") }
            #expect(undeclared.isEmpty, "\(target.name) imports what it does not declare: \(undeclared.sorted())")
            #expect(unused.isEmpty, "\(target.name) declares what it does not import: \(unused.sorted())")
        }
    }

    /// The domain is pure: it renders v1 messages (FCMMessage) but links neither the sender nor libcurl.
    @Test func theDomainLinksNeitherTheSenderNorLibcurl() throws {
        for file in try Self.sources(in: ["HeraldCore", "FCMMessage"]) {
            let imports = try Self.lines(file.text, matching: #"^\s*import\s+(HeraldFCM|CCurl|HeraldPostgres|HeraldHTTP|COpenSSL)\b"#)
            #expect(imports.isEmpty, "\(file.path): \(imports)")
        }
        let manifest = try String(contentsOfFile: TestDatabase.repositoryRoot + "/Package.swift", encoding: .utf8)
        for target in ["HeraldCore", "FCMMessage"] {
            let declaration = try #require(manifest.firstMatch(of: try Regex(#"\.target\(name: "\#(target)",[^)]*\)"#)))
            let text = String(declaration.output[0].substring!)
            #expect(!text.contains("\"HeraldFCM\"") && !text.contains("CCurl"), "\(target): \(text)")
        }
    }

    /// Each utility the first wave wrote several times now exists once (the issue's list): a
    /// second definition of any of these names fails here.
    @Test func eachUtilityIsDefinedOnce() throws {
        let definitions = [
            #"enum SHA256\b|func sha256Hex\b"#, #"RAND_bytes\("#, #"func percentEncoded\b|enum PercentEncoding\b"#,
            #"nanosleep\("#, #"class ConditionLock\b|class PThreadLocked\b"#, #"719_468"#, #"HH24:MI:SS"#,
        ]
        let files = try Self.sources()
        for pattern in definitions {
            let found = try files.filter { try !Self.lines($0.text, matching: pattern).isEmpty }.map(\.path)
            #expect(found.count == 1, "\(pattern) is in \(found)")
        }
    }

    /// Pages hand their templates typed view models (`PageView`), never an untyped dictionary, so
    /// the compiler checks what a page fills in and `PageTemplateTests` what its template reads.
    @Test func pagesRenderTypedViewsNotDictionaries() throws {
        for file in try Self.sources(in: ["HeraldWeb"]) {
            let found = try Self.lines(file.text, matching: #"\[String\s*:\s*Any\]"#)
            #expect(found.isEmpty, "\(file.path) builds an untyped page context: \(found)")
        }
    }

    /// The request's language is in its context and handed on (`context.words`, a page's
    /// `chrome.words`), never read from ambient state: the web module has no task-local.
    @Test func theRequestsLanguageIsHandedOnNotAmbient() throws {
        for file in try Self.sources(in: ["HeraldWeb"]) {
            let found = try Self.lines(file.text, matching: #"@TaskLocal|\.withValue\("#)
            #expect(found.isEmpty, "\(file.path) keeps request state in a task-local: \(found)")
        }
    }

    /// The web face speaks HTTP and HTML only: no SQL, no libpq, no libcurl.
    @Test func theWebFaceKnowsNoDatabaseAndNoSender() throws {
        for file in try Self.sources(in: ["HeraldWeb"]) {
            let imports = try Self.lines(file.text, matching: #"^\s*import\s+(HeraldPostgres|CLibPQ|HeraldFCM|CCurl)\b"#)
            #expect(imports.isEmpty, "\(file.path): \(imports)")
        }
    }
}

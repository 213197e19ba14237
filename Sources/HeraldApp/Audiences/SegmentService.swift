import FCMMessage
import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// A saved segment.
public struct Segment: Sendable, Equatable {
    public var id: SegmentID
    public var name: String
    public var rule: SegmentRule
    public var createdBy: String?
    public var updatedAt: Date
    /// The active devices it reached when last counted (nil: not counted yet), and when.
    public var reach: Int? = nil
    public var reachCountedAt: Date? = nil

    /// Its kept count with its time, when it has one.
    public var keptReach: (devices: Int, countedAt: Date)? {
        guard let reach, let reachCountedAt else { return nil }
        return (reach, reachCountedAt)
    }
}

/// A segment as a campaign's pages name it: "238 devices in “Persian & Hebrew VIPs”".
public struct SegmentSummary: Sendable, Equatable {
    public var name: String
    /// The active devices it reached when counted (`countedAt`): kept with the segment, counted
    /// again in the background a few minutes after (`SegmentReach`), never on a page's request.
    public var devices: Int
    public var countedAt: Date

    public init(name: String, devices: Int, countedAt: Date) {
        self.name = name
        self.devices = devices
        self.countedAt = countedAt
    }
}

/// What a rule reaches as the editor asks while it is being edited: counted, or, when counting
/// takes longer than the service's `liveCountTimeout` (a rule the census cannot answer, over
/// millions of devices), PostgreSQL's estimate of it, said to be one.
public struct LiveReach: Sendable, Equatable {
    public var devices: Int
    public var isEstimate: Bool

    public init(devices: Int, isEstimate: Bool = false) {
        self.devices = devices
        self.isEstimate = isEstimate
    }
}

/// Saved segments and their reach.
public struct SegmentService: Sendable {
    let database: Database
    let devices = DeviceStore()
    let audit = AuditLog()
    /// The longest the editor's count may take before its estimate is answered instead.
    let liveCountTimeout: Duration

    public init(database: Database, liveCountTimeout: Duration = .seconds(1)) {
        self.database = database
        self.liveCountTimeout = liveCountTimeout
    }

    /// Reads `{"name", "rule"}`, every problem at once.
    public static func parse(_ json: JSON) -> Result<(name: String, rule: SegmentRule), ValidationErrors> {
        var reader = JSONReader()
        guard let object = reader.object(json, at: "") else { return .failure(ValidationErrors(errors: reader.issues)) }
        // A segment as read (with its id, author, time and reach) may be sent back: those are ignored.
        reader.rejectUnknown(object, known: ["name", "rule", "id", "created_by", "updated_at", "devices", "devices_counted_at"], at: "")
        let name = reader.string(object, "name", at: "", required: true) ?? ""
        if reader.member(object, "name") != nil, name.allSatisfy(\.isWhitespace) || name.unicodeScalars.count > 200 {
            reader.report("name", "invalid_value", "a segment's name has 1 to 200 characters")
        }
        var rule: SegmentRule?
        if let value = reader.member(object, "rule") {
            switch SegmentRule.parse(value) {
            case .success(let parsed): rule = parsed
            case .failure(let errors): reader.append(errors.errors)
            }
        } else {
            reader.report("rule", "required", "\"rule\" is required: conditions under \"all\" or \"any\"")
        }
        guard let rule, reader.issues.isEmpty else { return .failure(ValidationErrors(errors: reader.issues)) }
        return .success((name, rule))
    }

    public func create(_ json: JSON, by actor: Actor) throws -> Segment {
        let (name, rule) = try DeviceService.checked(Self.parse(json), title: "The segment is not valid")
        return try database.transaction { connection in
            guard let row = try connection.query("""
                INSERT INTO segments (name, rule, created_by) VALUES (\(name), \(PostgresJSONB(rule.toJSON().serializedString())), \(actor.name))
                ON CONFLICT (name) DO NOTHING
                RETURNING id, updated_at
                """).first else {
                throw AppError.conflict(code: "duplicate_name", title: "The name is taken", detail: "A segment named \"\(name)\" exists already.")
            }
            let (id, updated) = try row.decode((SegmentID, Date).self, columns: "id", "updated_at")
            try audit.record(.segmentSaved, by: actor, object: .segment(id), details: ["name": .string(name)], on: connection)
            let reach = try SegmentReach.count(id, rule: rule, on: connection)
            return Segment(id: id, name: name, rule: rule, createdBy: actor.name, updatedAt: updated, reach: reach.devices, reachCountedAt: reach.countedAt)
        }
    }

    public func update(_ id: SegmentID, _ json: JSON, by actor: Actor) throws -> Segment {
        let (name, rule) = try DeviceService.checked(Self.parse(json), title: "The segment is not valid")
        do {
            return try save(id, name: name, rule: rule, by: actor)
        } catch let error as PostgresError where error.code == .uniqueViolation {
            throw AppError.conflict(code: "duplicate_name", title: "The name is taken", detail: "A segment named \"\(name)\" exists already.")
        }
    }

    private func save(_ id: SegmentID, name: String, rule: SegmentRule, by actor: Actor) throws -> Segment {
        try database.transaction { connection in
            let rows = try connection.query("""
                UPDATE segments SET name = \(name), rule = \(PostgresJSONB(rule.toJSON().serializedString())), updated_at = now()
                WHERE id = \(id)::uuid RETURNING created_by, updated_at
                """)
            guard let row = rows.first else { throw AppError.notFound(.segment) }
            let (createdBy, updated) = try row.decode((String?, Date).self, columns: "created_by", "updated_at")
            try audit.record(.segmentSaved, by: actor, object: .segment(id), details: ["name": .string(name)], on: connection)
            let reach = try SegmentReach.count(id, rule: rule, on: connection)
            return Segment(id: id, name: name, rule: rule, createdBy: createdBy, updatedAt: updated, reach: reach.devices, reachCountedAt: reach.countedAt)
        }
    }

    /// Deletes a segment that no campaign waiting to send targets.
    public func delete(_ id: SegmentID, by actor: Actor) throws {
        try database.transaction { connection in
            let users = try connection.query("""
                SELECT name FROM campaigns WHERE content->>'segment' = \(id.description) AND status IN (\(constants: CampaignStatus.cancellable)) LIMIT 3
                """).map { try $0.decode(String.self, at: 0) }
            if !users.isEmpty {
                throw AppError.conflict(code: "segment_in_use", title: "The segment is in use",
                                        detail: "Campaigns not yet sent target it: \(users.joined(separator: ", ")). Change their audience first.")
            }
            guard try connection.execute("DELETE FROM segments WHERE id = \(id)::uuid") > 0 else { throw AppError.notFound(.segment) }
            try audit.record(.segmentDeleted, by: actor, object: .segment(id), on: connection)
        }
    }

    public func get(_ id: SegmentID) throws -> Segment {
        guard let segment = try database.read({ try Self.load(id, on: $0) }) else { throw AppError.notFound(.segment) }
        return segment
    }

    public func list() throws -> [Segment] {
        try database.read { try Self.all(on: $0) }
    }

    static func all(on connection: PostgresConnection) throws -> [Segment] {
        try connection.query("SELECT \(fragment: Self.columns) FROM segments ORDER BY name").map(Self.decode)
    }

    /// The segments with these ids by id, each with its kept reach (a segment never counted yet,
    /// as just after the upgrade that began keeping them, is counted now, once); a deleted
    /// segment's id is absent.
    public func summaries(_ ids: Set<SegmentID>) throws -> [SegmentID: SegmentSummary] {
        guard !ids.isEmpty else { return [:] }
        return try database.read { connection in
            var found: [SegmentID: SegmentSummary] = [:]
            let segments = try connection.query("""
                SELECT \(fragment: Self.columns) FROM segments WHERE id = ANY(\(ids.map(\.description))::uuid[])
                """).map(Self.decode)
            for segment in segments {
                let reach = try Self.kept(segment, on: connection)
                found[segment.id] = SegmentSummary(name: segment.name, devices: reach.devices, countedAt: reach.countedAt)
            }
            return found
        }
    }

    /// A segment's kept reach, counted now when it has none yet.
    static func kept(_ segment: Segment, on connection: PostgresConnection) throws -> (devices: Int, countedAt: Date) {
        try segment.keptReach ?? SegmentReach.count(segment.id, rule: segment.rule, on: connection)
    }

    /// A segment's kept reach (counted now when it has none yet).
    public func keptReach(_ segment: Segment) throws -> (devices: Int, countedAt: Date) {
        try segment.keptReach ?? database.read { try Self.kept(segment, on: $0) }
    }

    /// Every segment with its kept reach (counted now when it has none yet).
    public func listWithKeptReach() throws -> [(segment: Segment, devices: Int, countedAt: Date)] {
        try database.read { connection in
            try Self.all(on: connection).map { segment in
                let reach = try Self.kept(segment, on: connection)
                return (segment, reach.devices, reach.countedAt)
            }
        }
    }

    /// The summaries of the segments these campaigns send to, by segment id.
    public func summaries(of campaigns: [CampaignRecord]) throws -> [SegmentID: SegmentSummary] {
        try summaries(Set(campaigns.compactMap(\.segmentID)))
    }

    /// The names of the campaigns (not cancelled) that send to each segment, by segment id, most
    /// recently changed first.
    public func campaignsUsing() throws -> [SegmentID: [String]] {
        try database.read { connection in
            var using: [SegmentID: [String]] = [:]
            for row in try connection.query("""
                SELECT content->>'segment' AS segment, name FROM campaigns
                WHERE content ? 'segment' AND status <> \(constants: [CampaignStatus.cancelled]) ORDER BY updated_at DESC
                """) {
                let (id, name) = try row.decode((String, String).self, columns: "segment", "name")
                // A segment is stored as the parser read it: a UUID, lowercased.
                if let segment = SegmentID(id) { using[segment, default: []].append(name) }
            }
            return using
        }
    }

    /// The active devices a rule reaches now (all active devices when nil).
    public func reach(_ rule: SegmentRule?) throws -> Int {
        try database.read { try devices.count(rule, on: $0) }
    }

    /// The editor's count of a rule: exact when PostgreSQL counts it within `liveCountTimeout`,
    /// else the planner's estimate, marked as one (the editor never waits seconds on a count).
    public func liveReach(_ rule: SegmentRule?) throws -> LiveReach {
        try database.read { connection in
            let milliseconds = Int(liveCountTimeout.seconds * 1000)
            do {
                return LiveReach(devices: try connection.transaction { connection in
                    _ = try connection.execute(PostgresQuery(unsafeSQL: "SET LOCAL statement_timeout = \(max(1, milliseconds))"))
                    return try devices.count(rule, on: connection)
                })
            } catch let error as PostgresError where error.code == .queryCanceled {
                return LiveReach(devices: try devices.estimatedCount(rule, on: connection), isEstimate: true)
            }
        }
    }

    static func load(_ id: SegmentID, on connection: PostgresConnection) throws -> Segment? {
        try connection.query("SELECT \(fragment: Self.columns) FROM segments WHERE id = \(id)::uuid")
            .map(Self.decode).first
    }

    /// The columns `decode` reads.
    static let columns: PostgresQuery = "id, name, rule::text, created_by, updated_at, reach, reach_counted_at"

    static func decode(_ row: PostgresRow) throws -> Segment {
        let (id, name, rule, createdBy, updated) = try row.decode((SegmentID, String, String, String?, Date).self, columns: "id", "name", "rule", "created_by", "updated_at")
        let (reach, countedAt) = try row.decode((Int?, Date?).self, columns: "reach", "reach_counted_at")
        guard case .success(let parsed) = SegmentRule.parse(try JSON.parse(rule)) else {
            throw AppError.unavailable("The stored rule of segment \(id) can no longer be read.")
        }
        return Segment(id: id, name: name, rule: parsed, createdBy: createdBy, updatedAt: updated, reach: reach, reachCountedAt: countedAt)
    }
}

import Foundation
import HeraldCore
import HeraldPostgres

/// A device an admin listed for test messages: with approvals on, the only devices a test send
/// may reach (a test message is content no second person approved).
public struct TestDevice: Sendable, Equatable {
    public var token: String
    public var kind: DeviceKind
    /// Whose phone it is ("Ana's Pixel"), as the review page lists it.
    public var label: String
    public var addedBy: String
    public var addedAt: Date
}

/// The list of test devices: read by everyone who sends tests, kept by admins, each change audited.
public struct TestDeviceService: Sendable {
    let database: Database
    let audit = AuditLog()
    static let maximumLabelLength = 100

    public init(database: Database) {
        self.database = database
    }

    /// With approvals on, a test message reaches only listed devices: every other one is named
    /// (`tokens[i]`, `fids[i]`), and nothing is sent.
    func refuseUnlisted(tokens: [String], fids: [String]) throws {
        let unlisted = try database.read { try TestDeviceStore.unlisted(tokens + fids, on: $0) }
        let named = tokens.enumerated().map { ("tokens[\($0.offset)]", $0.element) } + fids.enumerated().map { ("fids[\($0.offset)]", $0.element) }
        let errors = named.filter { unlisted.contains($0.1) }.map { path, _ in
            FieldError(path: path, code: "not_a_test_device",
                       message: "with approvals on, test messages go only to the test devices an admin listed (/api/v1/test-devices); this one is not listed")
        }
        if !errors.isEmpty { throw AppError.invalid(ValidationErrors(errors: errors), title: "The test message request is not valid") }
    }

    public func list() throws -> [TestDevice] {
        try database.read { try TestDeviceStore.list(on: $0) }
    }

    /// Lists a device (or renames its label when it is listed already).
    public func add(_ token: String, kind: DeviceKind, label: String, by actor: Actor) throws -> TestDevice {
        var errors = Device.identifierProblem(token, kind: kind, at: kind == .fid ? "fid" : "token").map { [$0] } ?? []
        if label.contains("\0") {
            errors.append(FieldError(path: "label", code: "invalid_value", message: "a label cannot hold the character U+0000"))
        } else if label.unicodeScalars.count > Self.maximumLabelLength {
            errors.append(FieldError(path: "label", code: "too_long", message: "a label has at most \(Self.maximumLabelLength) characters",
                                     limit: Self.maximumLabelLength))
        }
        guard errors.isEmpty else { throw AppError.invalid(ValidationErrors(errors: errors), title: "The test device is not valid") }
        return try database.transaction { connection in
            let device = try TestDeviceStore.upsert(token, kind: kind, label: label, by: actor.name, on: connection)
            try audit.record(.testDeviceAdded, by: actor, object: .device(token),
                             details: ["kind": .string(kind.rawValue), "label": .string(label)], on: connection)
            return device
        }
    }

    public func remove(_ token: String, by actor: Actor) throws {
        try database.transaction { connection in
            guard try TestDeviceStore.delete(token, on: connection) else { throw AppError.notFound(.device) }
            try audit.record(.testDeviceRemoved, by: actor, object: .device(token), on: connection)
        }
    }
}

/// The SQL of `test_devices`.
enum TestDeviceStore {
    static let columns: PostgresQuery = "token, kind, label, added_by, added_at"

    static func list(on connection: PostgresConnection) throws -> [TestDevice] {
        try records(connection.query("SELECT \(fragment: columns) FROM test_devices ORDER BY added_at, token"))
    }

    static func upsert(_ token: String, kind: DeviceKind, label: String, by actor: String, on connection: PostgresConnection) throws -> TestDevice {
        try records(connection.query("""
            INSERT INTO test_devices (token, kind, label, added_by) VALUES (\(token), \(kind.rawValue), \(label), \(actor))
            ON CONFLICT (token) DO UPDATE SET kind = excluded.kind, label = excluded.label
            RETURNING \(fragment: columns)
            """))[0]
    }

    static func delete(_ token: String, on connection: PostgresConnection) throws -> Bool {
        !(try connection.query("DELETE FROM test_devices WHERE token = \(token) RETURNING token")).isEmpty
    }

    /// Those of `tokens` that are not listed.
    static func unlisted(_ tokens: [String], on connection: PostgresConnection) throws -> Set<String> {
        let listed = try connection.query("SELECT token FROM test_devices WHERE token = ANY(\(tokens))").map { try $0.decode(String.self, column: "token") }
        return Set(tokens).subtracting(listed)
    }

    static func records(_ rows: PostgresRows) throws -> [TestDevice] {
        try rows.map { row in
            let (token, kind, label, addedBy, addedAt) = try row.decode((String, String, String, String, Date).self,
                                                                          columns: "token", "kind", "label", "added_by", "added_at")
            return TestDevice(token: token, kind: DeviceKind(rawValue: kind) ?? .token, label: label, addedBy: addedBy, addedAt: addedAt)
        }
    }
}

import Foundation
import HeraldCore
import HeraldJSON
import HeraldPostgres

/// The project's contact policy (`contact_policy`, one row): the frequency caps and the global
/// control group.
struct ContactPolicyStore: Sendable {
    func read(on connection: PostgresConnection, locking: Bool = false) throws -> ContactPolicy {
        let lock: PostgresQuery = locking ? "FOR UPDATE" : ""
        guard let row = try connection.query("""
            SELECT caps::text, control_basis_points, control_salt, extract(epoch FROM control_since)::float8 AS control_since, version,
                   extract(epoch FROM updated_at)::float8 AS updated_at
            FROM contact_policy \(fragment: lock)
            """).first else { return ContactPolicy() }
        let (caps, basisPoints, salt, since, version, updated) = try row.decode((String, Int, String, Double, Int, Double).self, columns: "caps", "control_basis_points", "control_salt", "control_since", "version", "updated_at")
        let parsed = (try? JSON.parse(caps)).flatMap { try? FrequencyCaps.parse($0).get() } ?? FrequencyCaps()
        return ContactPolicy(caps: parsed, controlGroup: ControlGroup(basisPoints: basisPoints, salt: salt),
                             controlSince: Date(timeIntervalSince1970: since), version: version, updatedAt: Date(timeIntervalSince1970: updated))
    }

    /// The caps alone, as every claim of a marketing batch reads them (one small row).
    func caps(on connection: PostgresConnection) throws -> FrequencyCaps {
        guard let text = try connection.query("SELECT caps::text FROM contact_policy").first?.decode(String.self, at: 0),
              let json = try? JSON.parse(text), case .success(let caps) = FrequencyCaps.parse(json) else { return FrequencyCaps() }
        return caps
    }

    func write(_ policy: ContactPolicy, controlChanged: Bool, on connection: PostgresConnection) throws -> ContactPolicy {
        _ = try connection.execute("""
            UPDATE contact_policy SET caps = \(PostgresJSONB(policy.caps.toJSON().serializedString())),
                control_basis_points = \(policy.controlGroup.basisPoints), control_salt = \(policy.controlGroup.salt),
                control_since = CASE WHEN \(controlChanged) THEN now() ELSE control_since END,
                version = version + 1, updated_at = now()
            """)
        return try read(on: connection)
    }
}

/// The frequency caps and the control group, as the project set them.
public struct ContactPolicy: Sendable, Equatable {
    public var caps = FrequencyCaps()
    public var controlGroup = ControlGroup(basisPoints: 0, salt: "")
    /// When the control group last changed: comparisons of it start here.
    public var controlSince = Date(timeIntervalSince1970: 0)
    public var version = 0
    public var updatedAt = Date(timeIntervalSince1970: 0)
}

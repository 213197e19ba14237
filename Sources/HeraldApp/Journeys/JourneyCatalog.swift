import HeraldCore
import HeraldJSON
import HeraldPostgres
import HeraldSync

/// A published version of a journey, as devices on it walk it: its definition and the campaign
/// each send step sends as.
struct PublishedJourney: Sendable {
    var journeyID: JourneyID
    var version: Int
    var definition: JourneyDefinition
    /// The campaign of each send step, by the step's index.
    var campaigns: [Int: CampaignID]
}

/// Published versions, read once per process: a version never changes once published, so what
/// was read stays true (a deleted journey's versions are simply never asked for again).
final class JourneyCatalog: Sendable {
    struct Key: Hashable { var journeyID: JourneyID; var version: Int }
    private let known = Locked<[Key: PublishedJourney]>([:])

    static let shared = JourneyCatalog()

    /// The versions asked for that exist, by key.
    func versions(_ keys: Set<Key>, on connection: PostgresConnection) throws -> [Key: PublishedJourney] {
        var found = known.withLock { known in known.filter { keys.contains($0.key) } }
        let missing = keys.subtracting(found.keys)
        guard !missing.isEmpty else { return found }
        let rows = try connection.query("""
            SELECT v.journey_id, v.version, v.definition::text,
                   coalesce((SELECT array_agg(s.step::text || '=' || s.campaign_id::text) FROM journey_sends s
                             WHERE s.journey_id = v.journey_id AND s.version = v.version), '{}') AS sends
            FROM journey_versions v JOIN unnest(\(missing.map(\.journeyID)), \(missing.map { String($0.version) })) AS x(j, n)
              ON v.journey_id = x.j::uuid AND v.version = x.n::integer
            """)
        for row in rows {
            let (journeyID, version, text, sends) = try row.decode((JourneyID, Int, String, [String]).self, columns: "journey_id", "version", "definition", "sends")
            guard let json = try? JSON.parse(text), case .success(let definition) = JourneyDefinition.parse(json) else {
                throw AppError.unavailable("Journey \(journeyID) version \(version) no longer reads as a journey; it cannot move its devices.")
            }
            var campaigns: [Int: CampaignID] = [:]
            for pair in sends {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, let step = Int(parts[0]), let campaign = CampaignID(parts[1]) { campaigns[step] = campaign }
            }
            let published = PublishedJourney(journeyID: journeyID, version: version, definition: definition, campaigns: campaigns)
            found[Key(journeyID: journeyID, version: version)] = published
        }
        known.withLock { known in for (key, value) in found { known[key] = value } }
        return found
    }

    func version(_ journeyID: JourneyID, _ version: Int, on connection: PostgresConnection) throws -> PublishedJourney? {
        let key = Key(journeyID: journeyID, version: version)
        return try versions([key], on: connection)[key]
    }
}

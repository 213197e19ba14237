import Foundation
import HeraldCore

/// One open or conversion as a warehouse pulls it.
public struct ExportedEvent: Sendable, Equatable {
    /// The order it was recorded in: the cursor to continue after it.
    public var sequence: Int64
    public var id: EventID
    /// Nil for the app's own events (an app open, a purchase), which no campaign caused.
    public var campaignID: CampaignID?
    public var variant: String?
    public var type: EventType
    public var deviceToken: String?
    public var occurredAt: Date
    public var receivedAt: Date
}

extension EventService {
    public static let exportPageLimit = 10_000
    /// Events younger than this are held back from an export (see `EventStore.export`).
    static let exportSettleSeconds = 2.0

    /// Up to `limit` events in the order they were recorded, after `cursor` (else from `since`, an RFC 3339 time,
    /// else from the first), and the cursor to continue after the last.
    public func export(after cursor: Int64?, since: String?, limit: Int) throws -> (events: [ExportedEvent], next: Int64?) {
        let events = try database.read {
            try store.export(after: cursor, since: cursor == nil ? since : nil, limit: limit, settle: Self.exportSettleSeconds, on: $0)
        }
        return (events, events.last?.sequence ?? cursor)
    }
}

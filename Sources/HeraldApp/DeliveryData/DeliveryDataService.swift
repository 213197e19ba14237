import Foundation
import HeraldCore
import HeraldFCM
import HeraldPostgres

/// FCM's own delivery figures (the Data API) for the project's Android apps: read daily and on
/// demand, kept by day, app and label, and shown per variant in the report.
public struct DeliveryDataService: Sendable {
    let database: Database
    let client: FCMDataClient?
    /// The Android app ids to read (`HERALD_FCM_ANDROID_APPS`); empty: those devices registered with.
    let apps: [String]
    let store = DeliveryDataStore()

    /// What one read of the Data API brought.
    public struct Refresh: Sendable, Equatable {
        public var apps: [String]
        public var rows: Int
    }

    /// Reads every app's rows and stores them; nothing is read without a sender's credentials.
    public func refresh() throws -> Refresh {
        guard let client else { throw AppError.sendingNotConfigured }
        let apps = self.apps.isEmpty ? try database.read { try store.registeredAndroidApps(on: $0) } : self.apps
        var rows = 0
        for app in apps {
            let found: [AndroidDeliveryRow]
            do {
                found = try client.deliveryData(app: app)
            } catch {
                throw AppError.refused(code: "fcm_data_api", title: "The FCM Data API refused", detail: error.message)
            }
            try database.transaction { try store.upsert(found, on: $0) }
            rows += found.count
        }
        return Refresh(apps: apps, rows: rows)
    }

    /// The figures of a campaign's labels: each variant's own, and the campaign's single label
    /// (when some run labelled it as a whole), over every day FCM reported them.
    static func figures(of spec: CampaignSpec, campaignID: String, on connection: PostgresConnection) throws -> CampaignDelivery {
        let store = DeliveryDataStore()
        var perVariant: [String: String] = [:]
        var labelled = spec
        labelled.options.labels = .perVariant
        for variant in spec.effectiveVariants {
            if let label = Renderer.analyticsLabel(campaign: labelled, variantKey: variant.key, campaignID: campaignID) { perVariant[variant.key] = label }
        }
        labelled.options.labels = .perCampaign
        let whole = spec.effectiveVariants.first.flatMap { Renderer.analyticsLabel(campaign: labelled, variantKey: $0.key, campaignID: campaignID) }
        let figures = try store.figures(labels: Array(perVariant.values) + [whole].compactMap { $0 }, on: connection)
        // A label shared by the variants (one explicit label and one variant) is the campaign's, not a variant's.
        let variants = perVariant.filter { $0.value != whole }.compactMapValues { figures[$0] }
        return CampaignDelivery(variants: variants, wholeCampaign: whole.flatMap { figures[$0] }, fetchedAt: try store.lastFetched(on: connection))
    }
}

/// What FCM delivered of one campaign, from the Data API.
public struct CampaignDelivery: Sendable, Equatable {
    /// By variant key, for the runs that labelled each variant.
    public var variants: [String: DeliveryFigures]
    /// For the runs that gave the campaign one label.
    public var wholeCampaign: DeliveryFigures?
    /// When the Data API was last read (nil: never).
    public var fetchedAt: Date?

    public var isEmpty: Bool { variants.isEmpty && wholeCampaign == nil }
}

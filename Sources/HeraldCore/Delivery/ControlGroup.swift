/// The project's global control group: a stable share of devices that gets no marketing
/// campaign, so that the pushes' effect can be measured against it. Membership is a hash of the
/// device (its bucket key) with the project's salt: the same devices run after run, until
/// someone changes the salt on purpose.
public struct ControlGroup: Sendable, Equatable {
    /// Hundredths of a percent of devices in the group (0…5000: at most half).
    public var basisPoints: Int
    public var salt: String

    public init(basisPoints: Int, salt: String) {
        self.basisPoints = basisPoints
        self.salt = salt
    }

    public static let maximumBasisPoints = 5000

    /// Whether the device keyed `key` (its bucket key, else its token) is in the group.
    public func contains(_ key: String) -> Bool {
        basisPoints > 0 && Int(DevicePlanner.stableHash(salt, key) % 10_000) < basisPoints
    }
}

extension ControlGroup {
    /// The group a run of `spec` skips: none for a transactional campaign, or when the group is empty.
    public func forRun(of spec: CampaignSpec) -> ControlGroup? {
        spec.delivery.transactional || basisPoints == 0 ? nil : self
    }
}

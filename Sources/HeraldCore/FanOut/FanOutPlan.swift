import FCMMessage

/// The v1 requests that send one run of a campaign, and why they are shaped so.
public struct FanOutPlan: Sendable, Equatable {
    /// The requests, variant by variant, in bucket order.
    public var requests: [PlannedRequest]
    /// Things an operator should know: overlapping conditions that may notify a device twice, or a
    /// variant too light to get a bucket.
    public var warnings: [String]
    /// The same warnings as values, for a page to say in its reader's language.
    public var notes: [PlanWarning] = []
    /// Which audience buckets each variant gets; empty when the campaign needs no buckets.
    public var allocation: [VariantBuckets]
    /// The buckets of the holdout (control) group, which get nothing.
    public var holdoutBuckets: Range<Int>
    /// The bucket configuration the plan was made with.
    public var buckets: AudienceBuckets

    /// The requests of one variant.
    public func requests(for variantKey: String) -> [PlannedRequest] {
        requests.filter { $0.variantKey == variantKey }
    }
}

/// One v1 send request of a plan.
public struct PlannedRequest: Sendable, Equatable {
    public var variantKey: String
    public var target: Target
    /// The rendered message (its target is `target`).
    public var message: Message
    /// At recipient time: the IANA zone whose time-zone topic the target names.
    public var zone: String?

    public init(variantKey: String, target: Target, message: Message, zone: String? = nil) {
        self.variantKey = variantKey
        self.target = target
        self.message = message
        self.zone = zone
    }
}

/// A variant's contiguous share of the audience buckets.
public struct VariantBuckets: Sendable, Equatable {
    public var key: String
    public var buckets: Range<Int>

    public init(key: String, buckets: Range<Int>) {
        self.key = key
        self.buckets = buckets
    }
}

/// The audience-bucket convention that A/B tests on topics rely on.
///
/// Client convention (each app install does this once, after it has an installation id):
/// `bucket = fnv1a64(utf8(installation id)) % count`, then it subscribes to the topic
/// `"\(prefix)\(bucket)"` with the number zero-padded to two digits (to three when `count` > 100),
/// for example `herald-bucket-07`. Each install is in exactly one bucket, so variants given
/// disjoint buckets never reach the same device. Changing `count` re-buckets every install: pick
/// it once (20 gives 5% steps).
public struct AudienceBuckets: Sendable, Hashable {
    /// How many buckets (1…1000).
    public var count: Int
    /// The topic-name prefix ("herald-bucket-").
    public var prefix: String

    public init(count: Int = 20, prefix: String = "herald-bucket-") {
        self.count = max(1, min(count, 1000))
        self.prefix = prefix
    }

    /// The topic of bucket `index` ("herald-bucket-07").
    public func topic(_ index: Int) -> String {
        let width = count > 100 ? 3 : 2
        let digits = String(index)
        return prefix + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// The bucket an installation id falls in, by the client convention (FNV-1a, 64 bits).
    public func bucket(forInstallation id: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int(hash % UInt64(count))
    }
}

/// How the registry names a device: its FCM registration token, or its installation ID (FID) for
/// a device registered by FID. The delivery engine names devices by this type, never by bare
/// text, as it names runs and campaigns by theirs; the registry's own models keep the text they
/// parse and store.
public struct DeviceToken: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let description: String

    public init(_ text: String) {
        description = text
    }

    public static func < (lhs: DeviceToken, rhs: DeviceToken) -> Bool {
        lhs.description < rhs.description
    }
}

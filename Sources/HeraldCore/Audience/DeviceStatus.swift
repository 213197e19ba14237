/// Where a registered device is: sent to (`active`), refused by FCM and sent nothing until it
/// registers anew (`invalid`), or unseen for longer than HERALD_DEVICE_STALE_DAYS (`stale`).
public enum DeviceStatus: String, Sendable, CaseIterable {
    case active, invalid, stale
}

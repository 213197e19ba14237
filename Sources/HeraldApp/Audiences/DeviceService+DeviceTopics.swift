import FCMMessage
import HeraldFCM

/// One topic a device is subscribed to, as FCM lists it.
public struct DeviceTopic: Sendable, Equatable {
    public var topic: String
    /// RFC 3339, as FCM gives it (nil when it gives none).
    public var createTime: String?

    public init(topic: String, createTime: String?) {
        self.topic = topic
        self.createTime = createTime
    }
}

extension DeviceService {
    /// The topics a registered device (by token or FID) is subscribed to, as FCM v1 lists them
    /// (`topicSubscriptions.list`, every page), whichever API subscribes devices: the Instance ID
    /// API lists nothing to an OAuth token, and the v1 list reads subscriptions made through either.
    public func topics(of token: String) throws -> [DeviceTopic] {
        let device = try get(token)
        guard let sender else { throw AppError.sendingNotConfigured }
        do {
            return try sender.topics(of: device.device.token).map { DeviceTopic(topic: $0.topic, createTime: $0.createTime) }.sorted { $0.topic < $1.topic }
        } catch let error as FCMError where error.isRetryable {
            // Still failing after the retry policy's tries (429, 5xx, no answer): nothing is wrong with the request.
            throw AppError.refused(code: "fcm_unavailable", title: "FCM did not answer the list of the device's topics", detail: error.description)
        } catch let error as FCMError {
            throw AppError.refused(code: "fcm_refused", title: "FCM refused to list the device's topics", detail: error.description)
        }
    }
}

import FCMMessage
import HeraldJSON

/// The plan as the preview shows it: every request's exact v1 body, and how the audience was
/// divided.
extension FanOutPlan {
    /// `{"requests": [{"variant", "target": {"topic"|"condition"|"token": …}, "body": {"message": …,
    /// "validate_only": false}, "payload_bytes", "payload_limit"}], "warnings": [..], "buckets": {"count",
    /// "prefix", "variants": [{"key", "topics": [..]}], "holdout_topics": [..]}}`. The `buckets`
    /// member is left out when the campaign needs no buckets.
    public func toJSON() -> JSON {
        var object: JSONObject = [
            "requests": .array(requests.map { request in
                [
                    "variant": .string(request.variantKey),
                    "target": request.target.json,
                    "body": ["message": request.message.json(), "validate_only": false],
                    "payload_bytes": .number(Double(request.message.payloadSize)),
                    "payload_limit": .number(Double(request.message.payloadLimit)),
                ]
            }),
            "warnings": .array(warnings.map(JSON.string)),
        ]
        if !allocation.isEmpty {
            object["buckets"] = [
                "count": .number(Double(buckets.count)),
                "prefix": .string(buckets.prefix),
                "variants": .array(allocation.map { share in
                    ["key": .string(share.key), "topics": .array(share.buckets.map { .string(buckets.topic($0)) })]
                }),
                "holdout_topics": .array(holdoutBuckets.map { .string(buckets.topic($0)) }),
            ]
        }
        return .object(object)
    }
}

extension Target {
    /// `{"topic": …}`, `{"condition": …}` or `{"token": …}`: how the preview, the outbox and the
    /// progress API show where a request goes.
    public var json: JSON { [fieldName: .string(value)] }
}

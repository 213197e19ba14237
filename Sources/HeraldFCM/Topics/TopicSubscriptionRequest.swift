import FCMMessage
import HeraldJSON

/// One request of FCM v1's `projects.registrations.topicSubscriptions`, as its discovery document
/// (`fcm.v1.json` revision 20261023) describes it. Pure: the method, the path below the base URL,
/// the query and the body; `deploy/tests/check-fcm-discovery` checks each kind against the document.
public struct TopicSubscriptionRequest: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case create, get, list, patch, delete
    }

    public var kind: Kind
    public var method: String
    /// `/v1/projects/{project}/registrations/{registration}/topicSubscriptions[/{topic}]`, each
    /// name percent-encoded.
    public var path: String
    /// Query parameters in order, not yet encoded.
    public var query: [(name: String, value: String)]
    /// The JSON body (create and patch), empty otherwise.
    public var body: [UInt8]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        (lhs.kind, lhs.method, lhs.path, lhs.body) == (rhs.kind, rhs.method, rhs.path, rhs.body)
            && lhs.query.elementsEqual(rhs.query) { $0 == $1 }
    }

    /// `path?query`, the query percent-encoded.
    public var target: String {
        query.isEmpty ? path : path + "?" + query.map { "\($0.name)=\(Self.encoded($0.value))" }.joined(separator: "&")
    }

    /// `create`: POST `v1/{parent}/topicSubscriptions?topicName=…`, answered ALREADY_EXISTS when
    /// the subscription exists. The body is a `TopicSubscription`; every field of it is either the
    /// identifier the server makes from the parent and `topicName` or output only, so Herald
    /// sends the empty one, `{}` (fcm.md's row names `topicName` as the query parameter).
    public static func create(project: String, registration: String, topic: String) -> Self {
        Self(kind: .create, method: "POST", path: parent(project, registration) + "/topicSubscriptions",
             query: [("topicName", topic)], body: Array("{}".utf8))
    }

    /// `delete`: DELETE `v1/{name}?allowMissing=true`: a subscription that is not there is no error.
    public static func delete(project: String, registration: String, topic: String) -> Self {
        Self(kind: .delete, method: "DELETE", path: name(project, registration, topic), query: [("allowMissing", "true")], body: [])
    }

    /// `get`: GET `v1/{name}`.
    public static func get(project: String, registration: String, topic: String) -> Self {
        Self(kind: .get, method: "GET", path: name(project, registration, topic), query: [], body: [])
    }

    /// `list`: GET `v1/{parent}/topicSubscriptions?pageSize=…[&pageToken=…]`.
    public static func list(project: String, registration: String, pageSize: Int = maximumPageSize, pageToken: String? = nil) -> Self {
        var query: [(name: String, value: String)] = [("pageSize", String(pageSize))]
        if let pageToken { query.append(("pageToken", pageToken)) }
        return Self(kind: .list, method: "GET", path: parent(project, registration) + "/topicSubscriptions", query: query, body: [])
    }

    /// `patch`: PATCH `v1/{name}?allowMissing=true` with the subscription's `name`: creates it when
    /// missing, answers the existing one otherwise. Herald subscribes with `create`; this is here
    /// for the emulator's tests and the discovery check.
    public static func patch(project: String, registration: String, topic: String) -> Self {
        // The body names the resource as it is, not percent-encoded as in the path.
        Self(kind: .patch, method: "PATCH", path: name(project, registration, topic), query: [("allowMissing", "true")],
             body: JSON.object(["name": .string("projects/\(project)/registrations/\(registration)/topicSubscriptions/\(topic)")]).serialized())
    }

    /// FCM's most topics a page of `list` answers (values above are read as 2,000); one page then
    /// holds every topic of an app instance, which may have at most 2,000.
    public static let maximumPageSize = 2000

    static func parent(_ project: String, _ registration: String) -> String {
        "/v1/projects/\(encoded(project))/registrations/\(encoded(registration))"
    }

    static func name(_ project: String, _ registration: String, _ topic: String) -> String {
        parent(project, registration) + "/topicSubscriptions/" + encoded(topic)
    }

    /// Percent-encodes all but RFC 3986's unreserved characters. A registration token holds ':'
    /// (which Google's paths use for custom methods, as in `messages:send`) and a topic name may
    /// hold '%', so both are escaped rather than sent as they are.
    public static func encoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return out
    }
}

/// A `TopicSubscription` as FCM answers it: `{name, topicName, createTime}`.
public struct TopicSubscription: Sendable, Equatable {
    public var topic: String
    /// RFC 3339, as FCM gives it (nil when it gives none).
    public var createTime: String?

    public init(topic: String, createTime: String?) {
        self.topic = topic
        self.createTime = createTime
    }

    /// Reads one; the topic from `topicName`, else the last segment of `name`.
    init?(json: JSON) {
        guard let topic = json["topicName"]?.stringValue ?? json["name"]?.stringValue?.split(separator: "/").last.map(String.init) else { return nil }
        self.init(topic: topic, createTime: json["createTime"]?.stringValue)
    }
}

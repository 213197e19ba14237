import FCMMessage
import Foundation
import HeraldJSON

extension JSON {
    /// An instant as every API answer writes it: RFC 3339 in UTC with microseconds.
    static func time(_ date: Date) -> JSON { .string(RFC3339.utc(secondsSince1970: date.timeIntervalSince1970)) }
}

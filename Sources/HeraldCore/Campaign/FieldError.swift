import HeraldJSON

/// One invalid field of a campaign: where (`variants[1].notification.body`; "" is the whole
/// document), a machine code, a sentence for people that states the limit, and the limit as a
/// number when there is one.
///
/// Codes: `required`, `no_content` (no title, body or data to send), `wrong_type`, `unknown_field`, `too_long`, `too_many`, `out_of_range`,
/// `duplicate`, `conflict` (topics and condition both given), `invalid_topic`,
/// `invalid_condition`, `too_many_topics`, `reserved_key`, `not_https`, `no_image_extension`, `invalid_color`,
/// `invalid_label`, `invalid_key` (variant key), `invalid_value` (an enumeration or format),
/// `invalid_duration` (in overrides), `invalid_time_zone`, `payload_too_large`.
public typealias FieldError = JSONIssue

/// Every invalid field of a campaign, in document order, never just the first.
public struct ValidationErrors: Error, Sendable, Equatable, CustomStringConvertible {
    public var errors: [FieldError]

    public init(errors: [FieldError]) {
        self.errors = errors
    }

    public var description: String { errors.map(\.description).joined(separator: "; ") }

    /// The errors at exactly `path`.
    public func at(_ path: String) -> [FieldError] { errors.filter { $0.path == path } }
}

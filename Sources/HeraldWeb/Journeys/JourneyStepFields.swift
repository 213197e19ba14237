/// The posted names of one journey step's fields. A step's own fields and its message's take the
/// prefix `s<step>_` (`s3_title`, `s3_data_key_0`); a variant's take the composer's names with the
/// variant's row number written `<step>v<row>` (`variant_key_3v1`, `variant_3v1_data_key_0`),
/// because `composer-variant.mustache` writes its names around that number. So the composer's
/// variant template serves the journey page unchanged, and `CampaignForm` reads a step's message
/// from its unscoped names.
struct JourneyStepFields: Sendable, Equatable {
    let step: Int

    var prefix: String { "s\(step)_" }

    /// The variant row number as posted: `3v1`.
    func variantIndex(_ row: Int) -> String { "\(step)v\(row)" }

    /// The posted name of the composer's (or the step's own) field `name`.
    func scoped(_ name: String) -> String {
        guard name.hasPrefix("variant_") else { return prefix + name }
        var parts = name.split(separator: "_", omittingEmptySubsequences: false).map(String.init)
        guard let index = parts.firstIndex(where: { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }), let row = Int(parts[index]) else { return prefix + name }
        parts[index] = variantIndex(row)
        return parts.joined(separator: "_")
    }

    /// The composer's name of a posted field of this step, or nil when it is not this step's.
    func unscoped(_ posted: String) -> String? {
        if posted.hasPrefix(prefix) { return String(posted.dropFirst(prefix.count)) }
        guard posted.hasPrefix("variant_"), let range = posted.range(of: "_\(step)v"),
              posted[range.upperBound...].first.map({ $0.isASCII && $0.isNumber }) == true else { return nil }
        return posted.replacingCharacters(in: range, with: "_")
    }
}

import Foundation

/// The languages Herald's pages and API problem texts are written in: the marketers' own
/// (Firebase's documents Herald began from are in Persian, Hebrew, Hindi and Vietnamese).
enum Language: String, CaseIterable, Sendable {
    case en, fa, he, hi, vi

    /// The language's name in itself, for the switcher (a reader finds their own name).
    var nativeName: String {
        switch self {
        case .en: "English"
        case .fa: "فارسی"
        case .he: "עברית"
        case .hi: "हिन्दी"
        case .vi: "Tiếng Việt"
        }
    }

    /// Persian and Hebrew read right to left: the whole page turns, not only the preview.
    var isRightToLeft: Bool { self == .fa || self == .he }

    /// `ltr` or `rtl`, for `<html dir>`.
    var direction: String { isRightToLeft ? "rtl" : "ltr" }

    /// The locale whose formatters write this language's dates and numbers (Persian digits and the
    /// Solar Hijri calendar come with `fa_IR`). CLDR's default for `hi_IN` is Latin digits; Herald's
    /// Hindi pages write numbers and dates in Devanagari digits (`@numbers=deva`), as its Persian
    /// pages write Persian ones.
    var locale: Locale { Locale(identifier: localeIdentifier) }

    var localeIdentifier: String {
        switch self {
        case .en: "en_GB"
        case .fa: "fa_IR"
        case .he: "he_IL"
        case .hi: "hi_IN@numbers=deva"
        case .vi: "vi_VN"
        }
    }

    /// The calendar dates are shown in first (Persian readers see the Solar Hijri date, with the
    /// Gregorian one beside it).
    var calendar: Calendar.Identifier { self == .fa ? .persian : .gregorian }

    /// The best of Herald's languages for an `Accept-Language` header ("fa-IR,fa;q=0.9,en;q=0.8"):
    /// ranges by quality, the first whose primary tag Herald speaks; English otherwise.
    static func negotiate(_ header: String?) -> Language {
        guard let header else { return .en }
        var ranges: [(tag: String, quality: Double, position: Int)] = []
        for (position, part) in header.split(separator: ",").enumerated() {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first, !tag.isEmpty else { continue }
            var quality = 1.0
            for parameter in pieces.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            if quality > 0 { ranges.append((tag.lowercased(), quality, position)) }
        }
        ranges.sort { $0.quality != $1.quality ? $0.quality > $1.quality : $0.position < $1.position }
        for range in ranges {
            let primary = range.tag.split(separator: "-").first.map(String.init) ?? range.tag
            // Old Hebrew tag "iw" is still sent by some systems.
            if let language = Language(rawValue: primary == "iw" ? "he" : primary) { return language }
        }
        return .en
    }
}

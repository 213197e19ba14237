import FCMMessage
import Foundation
import HeraldCore

/// The Android and iOS mock-ups' content (`preview.mustache`), in the composer and per variant
/// on the review page. An uploaded image is shown from Herald itself.
struct NotificationPreview: Sendable {
    let title: String
    let body: String
    let image: String?
    /// Shown only when it is a valid `#rrggbb`: anything else would not be the colour the device shows.
    let color: String?
    let icon: String?

    init(title: String, body: String, imageURL: String, color: String, icon: String, words: Localized) {
        self.title = title.isEmpty ? words.text("preview.placeholder_title") : title
        self.body = body.isEmpty ? words.text("preview.placeholder_body") : body
        image = imageURL.isEmpty ? nil : Self.localImagePath(imageURL) ?? imageURL
        self.color = Message.isColor(color) ? color : nil
        self.icon = icon.isEmpty ? nil : icon
    }

    /// `/images/<sha>.<ext>` for a URL of an image uploaded to Herald (whatever host it names),
    /// so the preview loads it from this server even when the public https host is elsewhere.
    static func localImagePath(_ url: String) -> String? {
        guard let range = url.range(of: "/images/") else { return nil }
        let file = url[range.upperBound...]
        let pieces = file.split(separator: ".")
        guard pieces.count == 2, pieces[0].count == 64, ImageInspector.Kind(fileExtension: String(pieces[1])) != nil else { return nil }
        return "/images/\(file)"
    }
}

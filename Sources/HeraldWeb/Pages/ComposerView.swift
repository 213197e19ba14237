import Foundation
import HeraldCore

/// The composer template's context: the form as typed, its errors beside each field, and the
/// notification preview (server-rendered, so it shows without JavaScript too).
enum ComposerView {
    static let timeZones = ["UTC", "Europe/London", "Europe/Berlin", "Europe/Paris", "Asia/Tehran", "Asia/Jerusalem",
                            "Asia/Kolkata", "Asia/Ho_Chi_Minh", "Asia/Tokyo", "America/New_York", "America/Chicago",
                            "America/Los_Angeles", "America/Sao_Paulo", "Australia/Sydney"]

    static func context(form: CampaignForm, errors: FormErrors, campaignID: String?, status: CampaignStatus?) -> [String: Any] {
        var context: [String: Any] = [
            "form": fields(form, errors),
            "errors": errors.byField,
            "has_errors": !errors.isEmpty,
            "several_errors": errors.order.count > 1,
            "error_summary": errors.order.flatMap { field in errors[field].map { ["field": field, "label": label(field), "message": $0] } },
            "action": campaignID.map { "/campaigns/\($0)" } ?? "/campaigns",
            "is_new": campaignID == nil,
            "character_limit": CampaignLimits.notificationCharacters,
            "image_limit_kb": ImageInspector.maximumBytes / 1024,
            "preview": preview(title: form.title, body: form.body, imageURL: form.imageURL,
                               color: form.options["color"] ?? "", icon: form.options["icon"] ?? ""),
        ]
        if let campaignID { context["campaign_id"] = campaignID }
        if let status { context["status"] = status.rawValue }
        return context
    }

    static func fields(_ form: CampaignForm, _ errors: FormErrors = FormErrors()) -> [String: Any] {
        var fields: [String: Any] = [
            "name": form.name, "title": form.title, "body": form.body, "image_url": form.imageURL,
            "target_topics": form.targetKind == "topics", "target_condition": form.targetKind == "condition",
            "topics": form.topics, "condition": form.condition,
            "schedule_at": form.scheduleAt, "schedule_time": form.scheduleTime, "schedule_until": form.scheduleUntil,
            "holdout_percent": form.holdoutPercent, "version": form.version,
            "character_count": form.title.count + form.body.count,
            "schedule_kinds": [("none", "Keep as a draft (schedule later)"), ("now", "Send now when published"),
                               ("once", "Once, at a local time"), ("daily", "Every day"), ("weekly", "Every week")].map { value, text in
                ["value": value, "text": text, "checked": form.scheduleKind == value]
            },
            "time_zones": (timeZones.contains(form.timeZone) || form.timeZone.isEmpty ? timeZones : [form.timeZone] + timeZones).map {
                ["value": $0, "selected": $0 == form.timeZone]
            },
            "days": CampaignForm.weekdays.map { ["value": $0, "checked": form.scheduleDays.contains($0)] },
            "variants": form.variants.enumerated().map { index, row in
                ["index": index, "number": index + 1, "key": row.key, "weight": row.weight, "title": row.title, "body": row.body,
                 "key_errors": errors["variant_key_\(index)"], "weight_errors": errors["variant_weight_\(index)"],
                 "title_errors": errors["variant_title_\(index)"], "body_errors": errors["variant_body_\(index)"],
                 "key_invalid": !errors["variant_key_\(index)"].isEmpty, "weight_invalid": !errors["variant_weight_\(index)"].isEmpty,
                 "title_invalid": !errors["variant_title_\(index)"].isEmpty, "body_invalid": !errors["variant_body_\(index)"].isEmpty] as [String: Any]
            },
            "data": form.data.enumerated().map { index, row in ["index": index, "number": index + 1, "key": row.key, "value": row.value] as [String: Any] },
            "priorities": [("", "Default"), ("high", "High"), ("normal", "Normal")].map { value, text in
                ["value": value, "text": text, "selected": (form.options["priority"] ?? "") == value]
            },
        ]
        for field in CampaignForm.optionFields where field != "priority" { fields[field] = form.options[field] ?? "" }
        return fields
    }

    /// The Android and iOS mock-ups' content. An uploaded image is shown from Herald itself.
    static func preview(title: String, body: String, imageURL: String, color: String, icon: String) -> [String: Any] {
        var preview: [String: Any] = ["title": title.isEmpty ? "Notification title" : title, "body": body.isEmpty ? "Notification text" : body,
                                      "placeholder": title.isEmpty && body.isEmpty]
        if !imageURL.isEmpty { preview["image"] = localImagePath(imageURL) ?? imageURL }
        if Self.isColor(color) { preview["color"] = color }
        if !icon.isEmpty { preview["icon"] = icon }
        return preview
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

    static func isColor(_ text: String) -> Bool {
        text.utf8.count == 7 && text.hasPrefix("#") && text.dropFirst().allSatisfy(\.isHexDigit)
    }

    /// A person's name for a form field, for the error summary.
    static func label(_ field: String) -> String {
        let names = ["name": "Campaign name", "title": "Title", "body": "Text", "image_url": "Image URL", "image_file": "Image upload",
                     "topics": "Topics", "condition": "Condition", "schedule_kind": "Schedule", "schedule_at": "Date and time",
                     "schedule_time": "Time of day", "schedule_until": "Until", "time_zone": "Time zone", "schedule_days": "Days",
                     "holdout_percent": "Holdout", "variants": "Variants", "data": "Custom data", "form": "Campaign", "version": "Version"]
        if let name = names[field] { return name }
        if field.hasPrefix("variant_") { return "Variant \((Int(field.split(separator: "_").last ?? "") ?? 0) + 1)" }
        return field.replacingOccurrences(of: "_", with: " ").capitalized
    }
}

import HeraldApp
import HeraldCore

/// An image chosen in a form's file field, stored before the form is judged and its URL put in
/// the form's URL field (the campaign composer's and a journey's send steps alike). A refused
/// image is an error beside the field, in the page's language.
struct ImageUpload {
    let context: RequestContext
    let images: ImageService

    /// The stored image's public URL; nil when the field has no file or the file is refused.
    func store(_ field: String, errorsAt errorField: String, errors: inout FormErrors) throws -> String? {
        guard let file = context.form.file(field) else { return nil }
        // Said in the page's language with both sizes, as the composer's script says it before
        // an upload (a refusal from the service below is the API's English sentence).
        if let refusal = Self.tooLarge(file.body.count, words: context.words) {
            errors.add(errorField, refusal)
            return nil
        }
        do {
            return context.publicURL(try images.upload(file.body, by: context.actor).path)
        } catch AppError.invalid(let refusal, _) {
            for error in refusal.errors { errors.add(errorField, context.words.fieldError(error)) }
            return nil
        }
    }

    /// "The image is 4.2 MB; the limit is 300 KB" for a file over the image limit; nil within it.
    static func tooLarge(_ bytes: Int, words: Localized) -> String? {
        guard bytes > ImageInspector.maximumBytes else { return nil }
        return words.text("image.too_large", words.fileSize(bytes), words.fileSize(ImageInspector.maximumBytes))
    }
}

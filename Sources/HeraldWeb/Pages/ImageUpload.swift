import HeraldApp

/// An image chosen in a form's file field, stored before the form is judged and its URL put in
/// the form's URL field (the campaign composer's and a journey's send steps alike). A refused
/// image is an error beside the field, in the page's language.
struct ImageUpload {
    let context: RequestContext
    let images: ImageService

    /// The stored image's public URL; nil when the field has no file or the file is refused.
    func store(_ field: String, errorsAt errorField: String, errors: inout FormErrors) throws -> String? {
        guard let file = context.form.file(field) else { return nil }
        do {
            return context.publicURL(try images.upload(file.body, by: context.actor).path)
        } catch AppError.invalid(let refusal, _) {
            for error in refusal.errors { errors.add(errorField, context.words.fieldError(error)) }
            return nil
        }
    }
}

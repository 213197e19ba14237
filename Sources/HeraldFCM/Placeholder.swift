// Placeholder until the module lands; replaced by its real files.
enum HeraldFCMPlaceholder {}

import FCMMessage

/// The composer's limits, in one place so the API document, the forms and the tests agree.
public enum CampaignLimits {
    /// Title + body of each variant, in characters as a person counts them (the console's limit).
    public static let notificationCharacters = 1000
    public static let nameCharacters = 200
    /// Topics in one campaign (more than 5 are sent as several conditions).
    public static let topics = 50
    /// Characters in one topic name.
    public static let topicCharacters = 256
    /// Characters in a condition expression.
    public static let conditionCharacters = 1000
    /// Topic mentions in a condition (FCM's limit).
    public static let conditionTopics = TopicCondition.maximumTopics
    /// Topic mentions in a condition used with A/B variants or a holdout: one place is kept for
    /// the audience-bucket part of each request's condition.
    public static let conditionTopicsWithBuckets = TopicCondition.maximumTopics - 1
    /// Characters of a URL (image, web link, web icon).
    public static let urlCharacters = 1000
    /// Characters of a short option (channel, sound, icon, category, click action).
    public static let optionCharacters = 100
    /// Characters of a data key.
    public static let dataKeyCharacters = 100
    public static let variants = 10
    /// File extensions a notification image URL may end in: the types every platform shows.
    public static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "gif"]
    /// Registration tokens one test send may reach (the console's limit).
    public static let testTokens = 20
    /// Registration tokens a campaign may name as its audience (a segment reaches any number):
    /// as many as fit in one request body of the default 1 MB, tokens of any length FCM accepts.
    public static let audienceTokens = 200
    /// Languages one notification may carry besides its own text.
    public static let translations = 20
    public static let variantKeyCharacters = 16
    public static let maximumWeight = 1000
    /// `holdout_percent` is below this.
    public static let holdoutPercentBound = 100
    public static let maximumBadge = 99_999
    public static let maximumExpirySeconds = Message.maximumTTLSeconds
    public static let analyticsLabelCharacters = 50
    public static let collapseKeyCharacters = 32
    /// Characters of an approver's comment.
    public static let approvalCommentCharacters = 1000
}

/// `/campaigns`: one page of campaigns, newest change first, with the search and status filter.
struct CampaignListView: PageView {
    static let template = "campaigns"
    let chrome: PageChrome
    let q: String
    let filtered: Bool
    /// Not on the first page, so the pager links back to it.
    let paged: Bool
    let statuses: [Choice]
    let campaigns: [CampaignRow]
    let empty: Bool
    /// The next page's address, absent on the last page.
    let next: String?
}

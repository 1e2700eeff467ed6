/// Which part of a search's results a request wants: by default all of them. A front end that
/// shows a screenful asks for a limit, and for the next page with the offset `PageInfo.next` gives.
public struct ResultPage: Sendable, Hashable {
    /// At most this many results; nil for all.
    public var limit: Int?
    /// How many results to skip first, in the search's own order.
    public var offset: Int

    public init(limit: Int? = nil, offset: Int = 0) {
        self.limit = limit
        self.offset = offset
    }

    /// Everything, from the first result.
    public static let all = ResultPage()
}

/// How the results a search returned relate to everything that matched, so a cut is never silent.
public struct PageInfo: Sendable, Hashable {
    /// How many results matched in all.
    public let total: Int
    /// How many results came before the first one returned.
    public let offset: Int
    /// The limit the request asked for, if any.
    public let limit: Int?
    /// How many results were returned.
    public let count: Int

    public init(total: Int, offset: Int, limit: Int?, count: Int) {
        self.total = total
        self.offset = offset
        self.limit = limit
        self.count = count
    }

    /// True when more results follow the ones returned.
    public var isTruncated: Bool { offset + count < total }

    /// The request for the results after these (same limit), or nil when there are none.
    public var next: ResultPage? { isTruncated ? ResultPage(limit: limit, offset: offset + count) : nil }
}

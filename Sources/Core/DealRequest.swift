/// A deal a search must prove (Klondike's `winnable: true`) before the game or the reset is made.
/// Proven seeds of one `pool` are interchangeable: a server keeps some ready in each pool.
public struct DealRequest: Sendable, Equatable {
    public var pool: Int
    /// The deal the options named (`seed` or `deck`), to prove as it is; nil: find any.
    public var given: JSON?

    public init(pool: Int, given: JSON?) {
        self.pool = pool
        self.given = given
    }
}

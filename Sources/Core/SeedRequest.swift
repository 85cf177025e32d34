/// A seed a search must prove (Klondike's `winnable: true`: a deal that can be won) before a game
/// or a command is made with it. Proven seeds of one `pool` are interchangeable: a server keeps
/// some ready in each pool.
public struct SeedRequest: Sendable, Equatable {
    public var pool: Int
    /// What the options named, to prove as it is; nil: find any.
    public var given: JSON?
    /// The sentence a refusal says when no proof came (`illegal-move` for a given one, the
    /// client's mistake; `unavailable` for none found in time).
    public var unproven: String

    public init(pool: Int, given: JSON?, unproven: String) {
        self.pool = pool
        self.given = given
        self.unproven = unproven
    }
}

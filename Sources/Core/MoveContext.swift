/// Who made a move and when: the only facts from outside a game that a move may use.
/// Time comes from the caller so the rules stay free of clocks.
public struct MoveContext: Sendable, Equatable {
    /// The player id (`p1`, `p2`, ...).
    public var player: String
    /// Seconds since the Unix epoch, as the caller's clock read it.
    public var time: Double

    public init(player: String, time: Double) {
        self.player = player
        self.time = time
    }
}

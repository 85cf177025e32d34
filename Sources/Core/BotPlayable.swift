/// A game whose seats bots may play (PROTOCOL section 18).
public protocol BotPlayable: SeatedGame {
    /// The levels it offers.
    static var botLevels: ClosedRange<Int> { get }
    /// Whether these `create` options allow bots (a race's need a deal proven winnable:
    /// `illegal-move` otherwise). All do by default.
    static func checkBots(creating options: JSON) throws(GameError)
    /// Whether the game waits for a move from `seat` now (its turn, or its own table in play).
    /// A `TurnBasedGame`'s default: `turn == seat`.
    func awaits(_ seat: String) -> Bool
    /// Seconds a bot of `level` waits before it moves (its pace), counted from when it may move.
    static func botPace(level: Int) -> Double
    /// The move a bot of `level` in `seat` makes now, or nil when it has none. May search (run off
    /// the service thread, within `budget`); random choices come from `random`.
    func botMove(seat: String, level: Int, random: inout SplitMix64, budget: Int) -> ReadCommand<Command>?
}

extension BotPlayable {
    public static func checkBots(creating options: JSON) throws(GameError) {}
}

extension BotPlayable where Self: TurnBasedGame {
    public func awaits(_ seat: String) -> Bool { turn == seat }
}

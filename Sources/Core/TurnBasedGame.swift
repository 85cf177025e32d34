/// A game whose players take turns: `turn` names the seat to move. Such a game may be created
/// with `clock` (PROTOCOL section 17): the realtime layer keeps the clocks, following `turn`,
/// and when one runs out issues `ServerCommand.timeout(seat:)`, which the game maps to the
/// command that ends it on time.
public protocol TurnBasedGame: SeatedGame {
    /// The seat to move; nil while nobody is (waiting, over).
    var turn: String? { get }
}

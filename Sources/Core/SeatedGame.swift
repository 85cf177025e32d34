/// A game whose players hold seats (`p1`, `p2`...). The server seats each `join` with the token
/// (a player's id is its seat), and once every seat has been taken issues `ServerCommand.start`
/// (at every later join too, since every seat stays taken: map it to nil once started).
/// A game that does not conform is shared by any number of players (Klondike, Plane).
public protocol SeatedGame: Game {
    /// The seat names, never empty.
    var seats: [String] { get }
}

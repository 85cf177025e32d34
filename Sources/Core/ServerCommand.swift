/// A command the server issues itself, handed to the game (`Game.command(for:)`), which maps
/// it to its own command. The server stores it in its own form and hands it over again on replay.
public enum ServerCommand: Sendable, Equatable {
    /// Every seat has been taken (`SeatedGame`): the game may start. Issued as player `server`.
    case start
    /// `player`'s connection left, or a game came back into memory without it: what belonged to
    /// the connection goes (`ConnectionBound`). Issued as that player.
    case departure(player: String)
    /// `seat`'s clock ran out (`TurnBasedGame` created with a clock): it loses on time.
    case timeout(seat: String)
}

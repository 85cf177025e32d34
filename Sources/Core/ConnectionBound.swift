/// A game where players hold something that belongs to their connection, not to their id (a
/// plane's selection). When a player's connection leaves the server issues
/// `ServerCommand.departure(player:)`; a game brought back into memory has no connection yet, so
/// the server issues the departure of every player in `playersHoldingConnectionState`.
public protocol ConnectionBound: Game {
    var playersHoldingConnectionState: [String] { get }
}

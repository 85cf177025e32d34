import Core

/// Whose command a room applies and how it is stored: a player's gesture under its client id
/// (applied at most once), or one the server issues for a clock or a bot (no id).
struct CommandSource {
    var player: String
    var author: CommandAuthor = .player
    var clientID: String? = nil
    /// When the gesture's frame arrived, carried to the broadcast for the fan-out's figures.
    var arrival: Instant? = nil
}

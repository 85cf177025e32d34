public enum RaceCommand: Sendable, Equatable {
    /// Every seat has been taken once: the race begins. Issued by the server, not by a player.
    case start
    /// A Klondike gesture on the sender's own table (tap, double-tap, drag, undo).
    case table(KlondikeCommand)
    /// A new deal for every table, once the race is finished.
    case reset(KlondikeResetOptions)
}

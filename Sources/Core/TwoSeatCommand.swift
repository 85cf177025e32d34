/// A command of a `TwoSeatGame`: a move on its board, or one of the part's own.
public enum TwoSeatCommand<Move: Sendable & Equatable>: Sendable, Equatable {
    /// A tap (or double-tap) on the board.
    case move(Move)
    case resign
    case reset
    /// Issued by the server once both seats are taken.
    case start
    /// Issued by the server when the seat's clock ran out (PROTOCOL section 17).
    case timeout(seat: Int)
    /// `drag` and `undo`: read, so a spectator is told `forbidden` first, and refused as moves.
    case unsupported(String)
}

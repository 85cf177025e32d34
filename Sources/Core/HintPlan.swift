/// What a `hint` for one viewer takes.
public enum HintPlan: Sendable, Equatable {
    /// Refused: this game has no hints, or not for this viewer now.
    case refused(GameError)
    /// A search off the service thread (it may take up to its budget); answers are cached by key.
    case search(PositionKey)
}

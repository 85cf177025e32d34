/// Who is asking for a hint.
public struct HintContext: Sendable, Equatable {
    public var viewer: Viewer
    /// A seated or unseated player of the game (not a spectator).
    public var isPlayer: Bool
    /// The game has a bot in a seat (section 18): a hint no longer plays for a person against a person.
    public var againstBot: Bool

    public init(viewer: Viewer, isPlayer: Bool, againstBot: Bool = false) {
        self.viewer = viewer
        self.isPlayer = isPlayer
        self.againstBot = againstBot
    }
}

/// Who looks at a game: a spectator (or a player of a game that shows every player the
/// same), or the player in a seat of a game that hides something from each seat.
public enum Viewer: Hashable, Sendable, CustomStringConvertible {
    case spectator
    case seat(String)

    public var description: String {
        switch self {
        case .spectator: return "spectator"
        case .seat(let seat): return seat
        }
    }
}

/// A game's status: the word its state and the lobby show (`won`, `finished`...), and the phase
/// it stands for, which the lobby's filter (`/api/games?status=`) knows for every game.
public struct GameStatus: Sendable, Hashable, CustomStringConvertible {
    public enum Phase: String, Sendable, CaseIterable {
        /// Not started: seats are still free.
        case waiting
        case playing
        /// Won, drawn or finished.
        case over
    }

    public var word: String
    public var phase: Phase

    public init(_ word: String, phase: Phase) {
        self.word = word
        self.phase = phase
    }

    public static let waiting = GameStatus("waiting", phase: .waiting)
    public static let playing = GameStatus("playing", phase: .playing)
    public static let won = GameStatus("won", phase: .over)
    public static let drawn = GameStatus("drawn", phase: .over)
    public static let finished = GameStatus("finished", phase: .over)

    /// The statuses a game shows unless it says otherwise (`Game.statuses`).
    public static let common: [GameStatus] = [.waiting, .playing, .won, .drawn, .finished]

    public var description: String { word }
}

import Core

/// What a `join` or a `watch` asks of a game: who enters (a player with its token and seat, or a
/// spectator with the game's key), from which seq, and whether as a replay or quietly.
struct GameEntry: Sendable, Equatable {
    var game: String
    var asPlayer: Bool
    var token: String?
    var seat: String?
    var watchKey: String?
    var since: Int?
    var replay = false
    /// A member through the game's old owner, taken in without a word to its client (no
    /// `joined`, no state but the diffs after `since`, no chat, no ack).
    var quiet = false

    /// The entry a join or a watch asks for; nil for any other command.
    init?(_ command: ClientCommand, quiet: Bool = false) {
        switch command {
        case .join(let game, let token, let since, let seat):
            self.init(game: game, asPlayer: true, token: token, seat: seat, since: since, quiet: quiet)
        case .watch(let game, let since, let replay, let key):
            self.init(game: game, asPlayer: false, watchKey: key, since: since, replay: replay && !quiet, quiet: quiet)
        default:
            return nil
        }
    }

    init(game: String, asPlayer: Bool, token: String? = nil, seat: String? = nil, watchKey: String? = nil,
         since: Int?, replay: Bool = false, quiet: Bool = false) {
        self.game = game
        self.asPlayer = asPlayer
        self.token = token
        self.seat = seat
        self.watchKey = watchKey
        self.since = since
        self.replay = replay
        self.quiet = quiet
    }
}

/// How a connection becomes a member once its place is found: its seat, what it is shown
/// first (`since`, a replay), the request it answers, and whether it is the game's creator or
/// taken in quietly.
struct Admittance {
    var asPlayer: Bool
    var seat: String?
    var since: Int?
    var replay: Bool
    var requestID: JSON?
    var isCreation: Bool
    var quiet: Bool
}

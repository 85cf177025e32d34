// The one interface every game implements. The realtime layer holds games only through it
// (`AnyGame`), so adding a game is writing one type that conforms and listing it in
// `GameCatalog.standard`: docs/GAMES.md walks through it. What a game does beyond the core
// below (seats and turns, a view per seat, hints, bots, proven seeds) it says by conforming
// to that capability's protocol (`SeatedGame`, `TurnBasedGame`, `SeatViews`, `HintingGame`,
// `BotPlayable`, `ProvenSeeds`); a game that does not conform simply has none.

/// A game's rules: a value that the server creates from options, changes only by `apply`,
/// and asks what each viewer sees. No clock (times come in `MoveContext`), no I/O, and every
/// random choice from a seed in its stored options, so replaying its stored commands from
/// its stored options rebuilds it exactly.
public protocol Game: Sendable, Equatable {
    associatedtype Command: Sendable & Equatable

    /// The `kind` of `create` and of every message about the game.
    static var kind: String { get }
    /// Message types of its own (`resign`, `add`...) beyond the generic gestures (`tap`,
    /// `double-tap`, `drag`, `reset`, `undo`), which reach `read` in every game. None by default.
    static var commandTypes: [String] { get }
    /// Its own commands' shorthand (PROTOCOL section 7): the message `verb args...` stands for,
    /// or nil when `verb` is not one of its own commands. The generic gestures' shorthand is the
    /// server's. None by default.
    static func shorthand(_ verb: String, _ args: [String]) throws(GameError) -> JSON?

    /// Checks `create`'s options and returns them as stored: what is needed to build the game
    /// again, the server's secret choices (a seed drawn from `random`) filled in.
    static func storedOptions(creating options: JSON, random: inout some RandomNumberGenerator) throws(GameError) -> JSON
    /// The game at its start, from stored options.
    init(stored options: JSON, time: Double) throws(GameError)

    /// Reads a generic gesture or one of `commandTypes`; a malformed one is `bad-request`. A
    /// generic gesture the game does not have throws `unknown-type` (the server then answers as
    /// PROTOCOL section 2 asks), or reads as a command `apply` refuses (`illegal-move`: a
    /// spectator is told `forbidden` first).
    static func read(_ type: String, _ message: JSON) throws(GameError) -> ReadCommand<Command>
    /// Applies a command from `context.player`; a refused one changes nothing.
    mutating func apply(_ command: Command, context: MoveContext) -> Result<GameOutcome, GameError>
    /// This game's command for one the server issues (the start once every seat is taken, a
    /// player's departure, a clock's timeout), or nil: none, or not now. Stored in the server's
    /// form (`ServerCommand`) and handed here again on replay. None by default.
    func command(for issued: ServerCommand) -> Command?

    /// Its status: the state's `status` word and its phase, which the lobby filters on.
    var status: GameStatus { get }
    /// Every status it may show, for the lobby's filter: the common ones by default.
    static var statuses: [GameStatus] { get }
    /// The state as `viewer` sees it (`.spectator` unless the game has `SeatViews`).
    func state(for viewer: Viewer) -> JSON
    /// `show`: the board as lines of text; `heading` is the server's line (kind, id, seq, status),
    /// which the game places where its format allows.
    func text(for viewer: Viewer, heading: String) -> [String]

    /// `apply` for a command the server holds erased: refused as `bad-request` when it is
    /// another game's. Not for games to write: the default is specialised for each game, so
    /// the realtime layer's call costs no generic dispatch.
    mutating func apply(erased command: ErasedCommand, context: MoveContext) -> Result<GameOutcome, GameError>
}

extension Game {
    public static var commandTypes: [String] { [] }
    public static func shorthand(_ verb: String, _ args: [String]) throws(GameError) -> JSON? { nil }
    public func command(for issued: ServerCommand) -> Command? { nil }
    public static var statuses: [GameStatus] { GameStatus.common }

    /// Won, drawn or finished: chat mutes end and the spectators' room opens to players.
    public var isOver: Bool { status.phase == .over }

    @inlinable
    public mutating func apply(erased command: ErasedCommand, context: MoveContext) -> Result<GameOutcome, GameError> {
        guard let typed = command.unboxed(as: Command.self) else {
            return .failure(.badRequest("wrong-kind", "that command belongs to another kind of game"))
        }
        return apply(typed, context: context)
    }
}

// MARK: Helpers for writing a game

extension Game {
    /// Runs a change on a copy and keeps it only if it succeeds: a refused command changes nothing.
    @inlinable
    public mutating func attempt(_ change: (inout Self) throws(GameError) -> GameOutcome) -> Result<GameOutcome, GameError> {
        var next = self
        do {
            let outcome = try change(&next)
            self = next
            return .success(outcome)
        } catch {
            return .failure(error)
        }
    }
}

// The one interface every game implements. The realtime layer holds games only through it
// (`AnyGame`), so adding a game is writing one type that conforms and listing it in
// `GameCatalog.standard`: docs/GAMES.md walks through four in a row.

/// A game's rules: a value that the server creates from options, changes only by `apply`,
/// and asks what each viewer sees. No clock (times come in `MoveContext`), no I/O, and every
/// random choice from a seed in its stored options, so replaying its stored commands from
/// its stored options rebuilds it exactly.
public protocol Game: Sendable, Equatable {
    associatedtype Command: Sendable & Equatable

    /// The `kind` of `create` and of every message about the game.
    static var kind: String { get }
    /// The message types this game reads as commands, the generic gestures it takes
    /// (`tap`, `double-tap`, `drag`, `reset`, `undo`) and its own (`add`, `resign`...).
    static var commandTypes: [String] { get }
    /// Its own commands' shorthand (PROTOCOL section 7): the message `verb args...` stands for,
    /// or nil when `verb` is not one of its own commands. The generic gestures' shorthand is the server's.
    static func shorthand(_ verb: String, _ args: [String]) throws(GameError) -> JSON?

    /// Checks `create`'s options and returns them as stored: what is needed to build the game
    /// again, the server's secret choices (a seed drawn from `random`) filled in.
    static func storedOptions(creating options: JSON, random: inout some RandomNumberGenerator) throws(GameError) -> JSON
    /// The game at its start, from stored options.
    init(stored options: JSON, time: Double) throws(GameError)

    /// Reads a message of one of `commandTypes`; a malformed one is `bad-request`.
    static func read(_ type: String, _ message: JSON) throws(GameError) -> ReadCommand<Command>
    /// Reads a stored command the server issued itself (`startCommand`, `departure`), on replay.
    static func readServerCommand(_ type: String, _ message: JSON) -> ReadCommand<Command>?
    /// Applies a command from `context.player`; a refused one changes nothing.
    mutating func apply(_ command: Command, context: MoveContext) -> Result<GameOutcome, GameError>

    /// Seat names (`p1`, `p2`...) for a game whose players hold seats; empty for a game any
    /// number of players share.
    var seats: [String] { get }
    /// The seat to move, in a game where players take turns.
    var turn: String? { get }
    /// The state's `status`, shown in the lobby.
    var status: String { get }
    /// Won, drawn or finished: chat mutes end and the spectators' room opens to players.
    var isOver: Bool { get }
    /// The command the server issues once every seat has been taken (nil: none, or not now).
    var startCommand: ReadCommand<Command>? { get }
    /// The command the server issues when a player's connection leaves (nil: none).
    func departure(of player: String) -> ReadCommand<Command>?
    /// Players holding something that belongs to their connection (a plane's selection): a game
    /// brought back into memory has no connection yet, so the server issues their `departure`.
    var playersHoldingConnectionState: [String] { get }

    /// Whether each seat sees a view of its own (`Viewer.seat`); otherwise every viewer sees the spectators' state.
    static var hasSeatViews: Bool { get }
    /// The state as `viewer` sees it.
    func state(for viewer: Viewer) -> JSON
    /// The spectators' diff as `viewer` sees it: a game with seat views derives each view from
    /// the full diff alone, so a server may store only full diffs.
    static func diff(_ full: Diff, for viewer: Viewer) -> Diff
    /// `show`: the board as lines of text; `heading` is the server's line (kind, id, seq, status),
    /// which the game places where its format allows.
    func text(for viewer: Viewer, heading: String) -> [String]

    /// What a `hint` from `asker` needs.
    func hintPlan(for asker: HintContext) -> HintPlan
    /// Hints for `viewer`'s position and for positions along the line it leads to, for the cache;
    /// the first is the asked position's. Run off the service thread, within `budget`.
    func hints(for viewer: Viewer, budget: Int) -> [(PositionKey, Hint)]
    /// Whether players take turns (`turn` names the seat to move): such a game may have a clock.
    static var takesTurns: Bool { get }
    /// The command that ends the game because `seat` ran out of time (the other seat wins), or nil.
    func timeout(of seat: String) -> ReadCommand<Command>?

    /// The bot levels this game offers for its seats (nil: no bots), and whether these `create`
    /// options allow bots (a race's bots need a deal proven winnable: `illegal-move` otherwise).
    static var botLevels: ClosedRange<Int>? { get }
    static func checkBots(creating options: JSON) throws(GameError)
    /// Whether the game waits for a move from `seat` now (its turn, or its own table in play).
    func awaits(_ seat: String) -> Bool
    /// Seconds a bot of `level` waits before it moves (its pace), counted from when it may move.
    static func botPace(level: Int) -> Double
    /// The move a bot of `level` in `seat` makes now, or nil when it has none. May search (run off
    /// the service thread, within `budget`); random choices come from `random`.
    func botMove(seat: String, level: Int, random: inout SplitMix64, budget: Int) -> ReadCommand<Command>?

    /// Whether any command or `create` may need a proven deal (`dealRequest`): the server asks
    /// nothing of a game that says no, so the common move costs no look.
    static var provesDeals: Bool { get }
    /// A deal to prove before a game is made with these `create` options, or nil.
    static func dealRequest(creating options: JSON) throws(GameError) -> DealRequest?
    /// A deal to prove before a command is applied (a reset's `winnable`), or nil.
    func dealRequest(for command: ReadCommand<Command>) -> DealRequest?
    /// The command dealing a proven seed instead: its stored form carries the seed, its cause does not.
    func dealing(_ command: ReadCommand<Command>, seed: UInt64) -> ReadCommand<Command>
}

extension Game {
    public static func shorthand(_ verb: String, _ args: [String]) throws(GameError) -> JSON? { nil }
    public static func readServerCommand(_ type: String, _ message: JSON) -> ReadCommand<Command>? { nil }
    public var seats: [String] { [] }
    public var turn: String? { nil }
    public var startCommand: ReadCommand<Command>? { nil }
    public func departure(of player: String) -> ReadCommand<Command>? { nil }
    public var playersHoldingConnectionState: [String] { [] }
    public static var hasSeatViews: Bool { false }
    public static func diff(_ full: Diff, for viewer: Viewer) -> Diff { full }
    public func hintPlan(for asker: HintContext) -> HintPlan {
        .refused(GameError(.unknownType, rule: "no-hints", "\(Self.kind) has no hint"))
    }
    public func hints(for viewer: Viewer, budget: Int) -> [(PositionKey, Hint)] { [] }
    public static var takesTurns: Bool { false }
    public func timeout(of seat: String) -> ReadCommand<Command>? { nil }
    public static var botLevels: ClosedRange<Int>? { nil }
    public static func checkBots(creating options: JSON) throws(GameError) {}
    public func awaits(_ seat: String) -> Bool { turn == seat }
    public static func botPace(level: Int) -> Double { 0 }
    public func botMove(seat: String, level: Int, random: inout SplitMix64, budget: Int) -> ReadCommand<Command>? { nil }
    public static var provesDeals: Bool { false }
    public static func dealRequest(creating options: JSON) throws(GameError) -> DealRequest? { nil }
    public func dealRequest(for command: ReadCommand<Command>) -> DealRequest? { nil }
    public func dealing(_ command: ReadCommand<Command>, seed: UInt64) -> ReadCommand<Command> { command }
}

extension Game {
    /// Runs a change on a copy and keeps it only if it succeeds: a refused command changes nothing.
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

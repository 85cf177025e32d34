// The one interface every game implements. The realtime layer holds games only through it
// (`AnyGame`), so adding a game is writing one type that conforms and listing it in
// `GameCatalog.standard`: docs/GAMES.md walks through four in a row.

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

/// A command read from a client's message, with the two JSON forms the server keeps of it.
public struct ReadCommand<Command: Sendable & Equatable>: Sendable, Equatable {
    public var command: Command
    /// What every member sees as the diff's `cause` (before `by` is added): no id, token, seed or deck.
    public var cause: JSON
    /// What storage keeps to replay it: the cause plus any secret part (a seed, a deck).
    public var stored: JSON

    public init(_ command: Command, cause: JSON, stored: JSON? = nil) {
        self.command = command
        self.cause = cause
        self.stored = stored ?? cause
    }
}

/// What an accepted command changed: one diff per group of viewers. A game that shows everyone
/// the same has one group, the spectators'; a game with seat views puts the spectators' group (the
/// full diff, with the seats that see it as it is) first, then the seats it changed differently.
/// The first group is kept apart from the others so that the common case, one diff for all, costs
/// no array: a move's outcome is made on every accepted command.
public struct GameOutcome: Sendable, Equatable {
    /// The spectators' diff: what storage keeps, and what every other view is derived from.
    public var fullDiff: Diff
    /// Who sees `fullDiff`: the spectators, and the seats that see it as it is.
    public var fullViewers: [Viewer]
    /// The other groups, each with a diff of its own (empty for a game that shows everyone the same).
    public var otherViews: [ViewDiff]
    public var events: [GameEvent]

    /// Every group, the spectators' first.
    public init(views: [ViewDiff], events: [GameEvent] = []) {
        fullDiff = views.first?.diff ?? Diff()
        fullViewers = views.first?.viewers ?? Self.spectatorsOnly
        otherViews = Array(views.dropFirst())
        self.events = events
    }

    /// One diff that every viewer sees.
    public init(_ diff: Diff, events: [GameEvent] = []) {
        fullDiff = diff
        fullViewers = Self.spectatorsOnly
        otherViews = []
        self.events = events
    }

    init(fullDiff: Diff, fullViewers: [Viewer], otherViews: [ViewDiff], events: [GameEvent]) {
        self.fullDiff = fullDiff
        self.fullViewers = fullViewers
        self.otherViews = otherViews
        self.events = events
    }

    /// Shared, so that a one-view outcome allocates no list of viewers.
    static let spectatorsOnly: [Viewer] = [.spectator]

    /// Every group, the spectators' first.
    public var views: [ViewDiff] { [ViewDiff(viewers: fullViewers, diff: fullDiff)] + otherViews }

    /// Calls `body` with each group, the spectators' first, without building the list.
    public func forEachView(_ body: (_ viewers: [Viewer], _ diff: Diff) throws -> Void) rethrows {
        try body(fullViewers, fullDiff)
        for view in otherViews { try body(view.viewers, view.diff) }
    }

    /// Adds `ops` at the end of every group's diff (ops every viewer sees, such as the clocks').
    public mutating func appendToEveryView(_ ops: [PatchOp]) {
        fullDiff.ops.append(contentsOf: ops)
        for index in otherViews.indices { otherViews[index].diff.ops.append(contentsOf: ops) }
    }
}

/// One view's diff and the viewers who see it.
public struct ViewDiff: Sendable, Equatable {
    public var viewers: [Viewer]
    public var diff: Diff

    public init(viewers: [Viewer], diff: Diff) {
        self.viewers = viewers
        self.diff = diff
    }
}

/// The answer to `hint`: the message's fields after `"type":"hint"` (`from`, `to`, and for a
/// solver's verdict `winnable`).
public struct Hint: Sendable, Equatable {
    public var from: String?
    public var to: String?
    /// Klondike's verdict on the position (`true`, `false`, or JSON null: undecided); nil leaves the field out.
    public var winnable: JSON?

    public init(from: String?, to: String?, winnable: JSON? = nil) {
        self.from = from
        self.to = to
        self.winnable = winnable
    }
}

/// Names a position for a cache of hints: equal for positions whose hint is the same.
public struct PositionKey: Hashable, Sendable {
    public var kind: String
    public var bytes: [UInt8]

    public init(kind: String, bytes: [UInt8]) {
        self.kind = kind
        self.bytes = bytes
    }
}

/// What a `hint` for one viewer takes.
public enum HintPlan: Sendable, Equatable {
    /// Refused: this game has no hints, or not for this viewer now.
    case refused(GameError)
    /// A search off the service thread (it may take up to its budget); answers are cached by key.
    case search(PositionKey)
}

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

/// A deal a search must prove (Klondike's `winnable: true`) before the game or the reset is made.
/// Proven seeds of one `pool` are interchangeable: a server keeps some ready in each pool.
public struct DealRequest: Sendable, Equatable {
    public var pool: Int
    /// The deal the options named (`seed` or `deck`), to prove as it is; nil: find any.
    public var given: JSON?

    public init(pool: Int, given: JSON?) {
        self.pool = pool
        self.given = given
    }
}

/// The searches behind `DealRequest`s, run off the service thread.
public protocol DealProver: Sendable {
    /// The pools a server keeps topped up.
    var pools: [Int] { get }
    /// Whether the given deal can be won (`given` non-nil), or the first of `candidates` that
    /// can (nil: none proven within the budget).
    func prove(_ request: DealRequest, candidates: [UInt64], budget: Int) -> DealProof
}

public enum DealProof: Sendable, Equatable {
    case givenDealProven
    case seed(UInt64)
    case notProven
}

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

/// The games a server offers, and the search that proves deals for those that need one.
public struct GameCatalog: Sendable {
    public let games: [any Game.Type]
    public let prover: (any DealProver)?
    /// Positions a search may expand by default (hints, proven deals): about a second of one core.
    public let searchBudget: Int

    public init(_ games: [any Game.Type], prover: (any DealProver)? = nil, searchBudget: Int = 1_500_000) {
        self.games = games
        self.prover = prover
        self.searchBudget = searchBudget
    }

    public func game(named kind: String) -> (any Game.Type)? { games.first { $0.kind == kind } }

    public var kinds: [String] { games.map { $0.kind } }

    /// Whether some game reads messages of this type.
    public func hasCommand(_ type: String) -> Bool { games.contains { $0.commandTypes.contains(type) } }
}

// MARK: Helpers for writing a game

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

extension Diff {
    /// Replaces each of `keys` at the top of the state with its value in `state` (a whole new deal).
    public static func replacing(_ keys: [String], from state: JSON) -> Diff {
        Diff(keys.map { PatchOp.replace(path: "/" + Pointer.escape($0), value: state[$0] ?? .null) })
    }
}

extension GameEvent {
    /// Whole seconds from `start` to `time`, rounded down; a clock that went backwards counts as 0.
    public static func seconds(from start: Double, to time: Double) -> JSON {
        let elapsed = time - start
        return .int(elapsed.isFinite && elapsed > 0 ? Int(min(elapsed, 9e15).rounded(.down)) : 0)
    }
}
